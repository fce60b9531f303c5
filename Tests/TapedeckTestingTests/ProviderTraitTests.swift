import Foundation
import Testing
import TapedeckProvider
import TapedeckTesting

/// A Moya-shaped target of the committed login cassette.
private enum EchoAPI: TargetType {
    case gzip
    var baseURL: URL { URL(string: api)! }
    var path: String { "/gzip" }
    var method: Method { .get }
    var task: TargetTask { .requestPlain }
    var headers: [String: String]? { nil }
}

@Suite("Testing integration: a Moya-shaped provider under the .cassette trait")
struct ProviderTraitTests {
    @Test("`try await provider.request(target)` runs the tape itself, as an awaited Alamofire-shaped request does",
          .cassette("login", mode: .replayOnly), .timeLimit(.minutes(1)))
    func asyncRequestRunsTheTape() async throws {
        let response = try await MoyaProvider<EchoAPI>().request(.gzip)
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.data, as: UTF8.self).contains("/gzip"))
    }
}
