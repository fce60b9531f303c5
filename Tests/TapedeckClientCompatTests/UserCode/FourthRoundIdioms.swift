// User code written against Alamofire 5: only the `import` lines differ (`import Alamofire`,
// `import class Alamofire.DataResponseSerializer`). Idioms seen in open-source network layers:
// upload progress on a plain `request(…)` POST, a form encoder built from `.afURLQueryAllowed`, a
// `convenience init` added to `URLEncodedFormParameterEncoder` (a class in Alamofire), a scoped
// import of a serializer class, and a logger printing `"\(response)"`.
import Foundation
import class TapedeckClient.DataResponseSerializer
import TapedeckClient

extension URLEncodedFormParameterEncoder {
    /// The app's form encoder: dates as ISO 8601 text, spaces as `+`, Alamofire's query characters.
    convenience init(dates: Bool) {
        self.init(encoder: URLEncodedFormEncoder(dateEncoding: dates ? .iso8601 : .deferredToDate,
                                                 spaceEncoding: .plusReplaced, allowedCharacters: .afURLQueryAllowed))
    }
}

/// A sign-up form posted with `request(…)`, not `upload(…)`, whose progress the screen shows.
struct SignUpForm: Encodable, Sendable {
    let name: String
    let bio: String
    let born: Date
}

enum FourthRound {
    /// Posts the form, reporting each upload progress fraction and the logger's line for the response.
    static func signUp(session: Session, progress: @escaping @Sendable (Double) -> Void,
                       logged: @escaping @Sendable (String) -> Void, done: @escaping @Sendable (Int?) -> Void) {
        let form = SignUpForm(name: "Ada L", bio: "math & engines", born: Date(timeIntervalSince1970: 0))
        session.request("https://api.example.com/signup", method: .post, parameters: form,
                        encoder: URLEncodedFormParameterEncoder(dates: true))
            .uploadProgress { progress($0.fractionCompleted) }
            .response(responseSerializer: DataResponseSerializer(emptyResponseCodes: [200, 204])) { response in
                logged("Finished: \(response)")
                done(response.response?.statusCode)
            }
    }
}
