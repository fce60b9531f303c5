import Foundation
import TapedeckClient
import Testing

@Suite("StableErrorText: error descriptions that read the same in every run")
struct StableErrorTextTests {
    private static var info: [String: Any] { [
        "Zeta": 1, NSLocalizedDescriptionKey: "timed out", "Alpha": "first",
        NSUnderlyingErrorKey: NSError(domain: "Inner", code: 7, userInfo: ["b": 2, "a": 1]),
    ] }

    @Test("bridged to NSError, each ClientError has the code Alamofire's AFError has on Linux (code that stores error._code reads the same)")
    func alamofireErrorCodes() {
        struct Failure: Error {}
        let codes: [(ClientError, Int)] = [
            (.createUploadableFailed(error: Failure()), 0), (.createURLRequestFailed(error: Failure()), 1),
            (.invalidURL(url: "x"), 3), (.requestAdaptationFailed(error: Failure()), 7),
            (.requestRetryFailed(retryError: Failure(), originalError: Failure()), 8),
            (.responseValidationFailed(reason: .unacceptableStatusCode(code: 500)), 9),
            (.sessionInvalidated(error: nil), 11), (.sessionTaskFailed(error: Failure()), 12),
            (.explicitlyCancelled, 14), (.sessionDeinitialized, 15),
        ]
        for (error, code) in codes {
            #expect((error as NSError).code == code, "\(error)")
        }
    }

    @Test("a URLError's userInfo is listed in sorted key order, an error among its values as domain and code")
    func foundationError() {
        // Given a URLError with several userInfo keys
        let error = URLError(.timedOut, userInfo: Self.info)
        // When it is described, and wrapped in a ClientError
        let text = StableErrorText.describe(error)
        // Then the keys come sorted, whatever order the dictionary holds them in
        #expect(text == "Error Domain=NSURLErrorDomain Code=-1001 UserInfo={Alpha=first, NSLocalizedDescription=timed out, NSUnderlyingError=Inner 7, Zeta=1}")
        #expect("\(ClientError.sessionTaskFailed(error: error))" == "the URLSession task failed: " + text)
    }

    @Test("an NSError held in a reason's associated value (a serializer's error) is put in the same form")
    func nestedInReason() {
        // Given a serialization failure whose error is an NSError with several userInfo keys
        let inner = NSError(domain: NSCocoaErrorDomain, code: 3840, userInfo: Self.info)
        let error = ClientError.responseSerializationFailed(reason: .jsonSerializationFailed(error: inner))
        // When it is described
        let text = "\(error)"
        // Then the NSError inside reads in sorted order
        #expect(text.contains("Error Domain=NSCocoaErrorDomain Code=3840 UserInfo={Alpha=first, NSLocalizedDescription=timed out, NSUnderlyingError=Inner 7, Zeta=1}"),
                "\(text)")
    }

    @Test("dictionaries inside lists and under non-string keys in a userInfo are listed in sorted order too")
    func nestedCollections() {
        // Given a userInfo whose values hold dictionaries in a list and one keyed by numbers
        let error = NSError(domain: "Outer", code: 1, userInfo: [
            "list": [["z": 1, "a": 2, "m": 3], ["y": 1, "b": 2]], "numbers": [AnyHashable(3): "c", AnyHashable(1): "a", AnyHashable(2): "b"],
        ])
        // When it is described
        let text = StableErrorText.describe(error)
        // Then every level reads in a fixed order
        #expect(text == "Error Domain=Outer Code=1 UserInfo={list=[{a=2, m=3, z=1}, {b=2, y=1}], numbers={1=a, 2=b, 3=c}}", "\(text)")
    }

    @Test("an error that is not Foundation's describes itself")
    func swiftError() {
        #expect(StableErrorText.describe(ClientError.explicitlyCancelled) == "the request was cancelled")
    }
}
