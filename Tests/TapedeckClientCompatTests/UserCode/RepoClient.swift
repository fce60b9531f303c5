// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Async calls: serializingDecodable / serializingData and their DataTask.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

struct Repo: Decodable, Sendable, Equatable {
    let id: Int
    let name: String
}

enum RepoClient {
    static func repos(for user: String, session: Session = .default) async throws -> [Repo] {
        try await session
            .request("https://api.example.com/users/\(user)/repos",
                     headers: [.accept("application/json")],
                     interceptor: .retryPolicy)
            .validate()
            .serializingDecodable([Repo].self)
            .value                                  // async throws -> [Repo]
    }

    /// Same call, keeping the whole response (status, metrics, timing).
    static func reposResponse(for user: String) async -> DataResponse<[Repo], AFError> {
        let task = AF.request("https://api.example.com/users/\(user)/repos")
            .validate(statusCode: 200..<300)
            .serializingDecodable([Repo].self, automaticallyCancelling: true)
        return await task.response
    }

    /// The raw body, and the result of a call that fails validation.
    static func rawAndResult(for user: String) async -> (Data?, Result<Data, AFError>) {
        let raw = try? await AF.request("https://api.example.com/users/\(user)/repos").serializingData().value
        let missing = await AF.request("https://api.example.com/users/nobody/repos").validate().serializingData().result
        return (raw, missing)
    }
}
