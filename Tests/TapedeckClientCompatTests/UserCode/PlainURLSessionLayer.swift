// An app's own networking layer on plain URLSession, with no Alamofire: the session is a parameter
// (defaulting to one made from the app's configuration), requests are built by an endpoint type,
// async calls decode JSON, an upload sends raw bytes, and a delegate-based feed reader collects
// the body piece by piece.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct AccountProfile: Codable, Sendable, Equatable {
    let userId: Int
    let displayName: String
}

struct NoteReceipt: Decodable, Sendable, Equatable {
    let id: Int
}

enum PlainAPIFailure: Error, Equatable {
    case status(Int, String?)
    case notHTTP
}

/// The endpoints of the app's API, turned into URLRequests the way apps write it by hand.
enum NotesEndpoint {
    case profile
    case createNote(title: String)
    case avatar

    static let base = URL(string: "https://api.example.com/v1")!

    func urlRequest() throws -> URLRequest {
        var request: URLRequest
        switch self {
        case .profile:
            request = URLRequest(url: Self.base.appendingPathComponent("profile"))
        case .createNote(let title):
            var components = URLComponents(url: Self.base.appendingPathComponent("notes"), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "draft", value: "false")]
            request = URLRequest(url: components.url!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            request.httpBody = try encoder.encode(["title": title])
        case .avatar:
            request = URLRequest(url: Self.base.appendingPathComponent("avatar"))
            request.httpMethod = "PUT"
            request.setValue("image/png", forHTTPHeaderField: "Content-Type")
        }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return request
    }
}

/// The app's client: async/await over `data(for:)` and `upload(for:from:)`.
final class PlainAPIClient: Sendable {
    let session: URLSession
    private let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    /// The configuration the app tunes for its API (timeouts, cache, extra header fields).
    static func configuration(base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        let configuration = base
        configuration.timeoutIntervalForRequest = 15
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpAdditionalHeaders = ["X-App-Version": "3.1", "Accept-Language": "en-GB"]
        return configuration
    }

    init(session: URLSession = URLSession(configuration: PlainAPIClient.configuration())) {
        self.session = session
    }

    private func checked(_ data: Data, _ response: URLResponse) throws -> Data {
        guard let http = response as? HTTPURLResponse else { throw PlainAPIFailure.notHTTP }
        guard (200..<300).contains(http.statusCode) else {
            throw PlainAPIFailure.status(http.statusCode, String(data: data, encoding: .utf8))
        }
        return data
    }

    func profile() async throws -> AccountProfile {
        let (data, response) = try await session.data(for: NotesEndpoint.profile.urlRequest())
        return try decoder.decode(AccountProfile.self, from: checked(data, response))
    }

    func createNote(title: String) async throws -> NoteReceipt {
        let (data, response) = try await session.data(for: NotesEndpoint.createNote(title: title).urlRequest())
        return try decoder.decode(NoteReceipt.self, from: checked(data, response))
    }

    func uploadAvatar(_ png: Data) async throws -> Int {
        let (data, response) = try await session.upload(for: NotesEndpoint.avatar.urlRequest(), from: png)
        _ = try checked(data, response)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

/// A delegate-based reader, the pre-async way: a data task whose delegate gathers the pieces and
/// reports the status and the whole body when the task completes.
final class FeedReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the delegate's state is touched only on the session's delegate queue.
    private var body = Data()
    private var status = 0
    private var pieces = 0
    private let finished: @Sendable (Int, Int, String?) -> Void

    init(finished: @escaping @Sendable (_ status: Int, _ pieces: Int, _ body: String?) -> Void) {
        self.finished = finished
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        body.append(data)
        pieces += 1
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finished(status, pieces, error == nil ? String(decoding: body, as: UTF8.self) : nil)
    }
}
