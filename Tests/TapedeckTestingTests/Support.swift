import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The host the committed `Cassettes/login.har.gz` was rewritten to (it was recorded from the
/// loopback server by `tools/regenerate-fixtures`, which sends these same requests).
let api = "http://api.tapedeck.test"

func loginRequest() -> URLRequest {
    var request = URLRequest(url: URL(string: api + "/echo")!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"user":"ada","password":"correct horse"}"#.utf8)
    return request
}

func profileRequest(token: String) -> URLRequest {
    var request = URLRequest(url: URL(string: api + "/headers")!)
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    return request
}
