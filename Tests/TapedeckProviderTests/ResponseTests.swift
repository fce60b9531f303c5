import Foundation
import Testing
import TapedeckClient
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling

/// The response's mapping helpers, and errors that keep what caused them.
@Suite("Provider: responses and errors")
struct ResponseTests {
    let json = Response(statusCode: 200, data: Data(#"{"user":{"login":"ada","id":1},"name":"x","list":[1]}"#.utf8))

    @Test("filters: successful codes, successful and redirect codes, a range, one code; a miss is .statusCode(self)")
    func filters() throws {
        let redirect = Response(statusCode: 304, data: Data())
        #expect(throws: Never.self) { try redirect.filterSuccessfulStatusAndRedirectCodes() }
        #expect(try redirect.filter(statusCode: 304) === redirect)
        do {
            _ = try redirect.filterSuccessfulStatusCodes()
            Issue.record("304 is not successful")
        } catch let error as ProviderError {
            guard case let .statusCode(response) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(response === redirect && error.response === redirect)
        }
        #expect(throws: ProviderError.self) { try redirect.filter(statusCodes: 400..<500) }
    }

    @Test("mapJSON gives Foundation objects as Moya's does (NSNull for an allowed empty body); map(ClientJSON.self) the typed value")
    func mapJSON() throws {
        let object = try #require(try json.mapJSON() as? [String: Any], "a JSON object maps to [String: Any]")
        #expect(object["name"] as? String == "x")
        #expect((object["user"] as? [String: Any])?["login"] as? String == "ada")
        #expect(try Response(statusCode: 200, data: Data("[1,2]".utf8)).mapJSON() as? [Int] == [1, 2])
        #expect(try Response(statusCode: 200, data: Data("7".utf8)).mapJSON() as? Int == 7, "fragments are allowed")
        #expect(try Response(statusCode: 204, data: Data()).mapJSON(failsOnEmptyData: false) is NSNull)
        #expect(Self.failure { try Response(statusCode: 204, data: Data()).mapJSON() } == "jsonMapping")
        #expect(try json.map(ClientJSON.self)["name"] == .string("x"))
    }

    @Test("mapString (whole body or a key path) and map(_:atKeyPath:) for Decodable types")
    func mapping() throws {
        #expect(try json.mapString(atKeyPath: "user.login") == "ada")
        #expect(try Response(statusCode: 200, data: Data("plain".utf8)).mapString() == "plain")
        #expect(try json.map(User.self, atKeyPath: "user") == User(login: "ada", id: 1))
        #expect(try json.map(String.self, atKeyPath: "name") == "x", "a value that is not a container decodes too")
        #expect(try json.map([Int].self, atKeyPath: "list") == [1])
        struct Empty: Decodable, Equatable {}
        #expect(try Response(statusCode: 204, data: Data()).map(Empty.self, failsOnEmptyData: false) == Empty())
    }

    @Test("mapping errors: jsonMapping, stringMapping, objectMapping with the decoding error kept, a missing key path")
    func mappingErrors() {
        let text = Response(statusCode: 200, data: Data("not json".utf8))
        #expect(Self.failure { try text.mapJSON() } == "jsonMapping")
        #expect(Self.failure { try json.mapString(atKeyPath: "user.id") } == "stringMapping")
        #expect(Self.failure { try json.mapString(atKeyPath: "missing") } == "stringMapping")
        #expect(Self.failure { try json.map(User.self, atKeyPath: "missing") } == "jsonMapping")
        #expect(Self.failure { try json.map(User.self) } == "objectMapping DecodingError")
    }

    /// The case of the ProviderError `body` throws ("none" when it returns, the error when it is another type).
    static func failure<T>(_ body: () throws -> T) -> String {
        do {
            _ = try body()
            return "none"
        } catch {
            guard let error = error as? ProviderError else { return "not a ProviderError: \(error)" }
            switch error {
            case .jsonMapping: return "jsonMapping"
            case .stringMapping: return "stringMapping"
            case let .objectMapping(underlying, _): return "objectMapping \(type(of: underlying))"
            default: return "\(error)"
            }
        }
    }

    @Test("network errors keep the session's ClientError and the URLError beneath it; validation failures keep the response")
    func errorsKeepTheirCause() throws {
        let world = World()
        world.network.faults = FaultRules([.init(.beforeConnect, .fail(.cannotConnectToHost), matching: RouteMatcher(path: "/zen"))])
        let provider = MoyaProvider<API>(session: world.session)
        let results = Box<[String: Result<Response, ProviderError>]>([:])
        provider.request(.zen) { result in results.mutate { $0["zen"] = result } }
        provider.request(.status(404)) { result in results.mutate { $0["404"] = result } }
        try world.run()

        let transport = try #require(results.value["zen"]?.failureError)
        guard case let .underlying(underlying, nil) = transport, let clientError = underlying as? ClientError else {
            Issue.record("expected .underlying(ClientError, nil), got \(transport)")
            return
        }
        #expect(clientError.isSessionTaskError)
        #expect(transport.urlError?.code == .cannotConnectToHost)
        #expect(transport.response == nil)

        let validation = try #require(results.value["404"]?.failureError)
        #expect(validation.clientError?.responseCode == 404)
        #expect(validation.response?.statusCode == 404 && validation.response?.request?.url?.path == "/status/404")
        #expect(validation.underlyingError is ClientError)
        #expect("\(validation)".contains("unacceptableStatusCode"), "the description says what failed: \(validation)")
    }
}
