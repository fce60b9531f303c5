// App code written against Moya 15 (Swift 5 mode): only the import line differs (`import Moya`).
// Moya 15 has no async API, so apps bridge it themselves with continuations; these extensions must
// keep compiling beside TapedeckProvider's own async methods (`request(_:callbackQueue:) async throws`).
// Compiled only, not run: on the simulated network nothing drives the simulation while such a
// continuation waits (only TapedeckProvider's own async methods drive it), so awaiting one hangs.
import Foundation
import TapedeckProvider

extension MoyaProvider {
    func request(_ target: Target) async -> Result<Response, MoyaError> {
        await withCheckedContinuation { continuation in
            request(target) { result in
                continuation.resume(returning: result)
            }
        }
    }

    func asyncRequest(_ target: Target) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            request(target) { result in
                switch result {
                case .success(let response): continuation.resume(returning: response)
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        }
    }
}

enum AsyncBridgeUse {
    static func zen(_ provider: MoyaProvider<GitHub>) async -> String? {
        let result = await provider.request(.zen)
        switch result {
        case .success(let response): return try? response.mapString()
        case .failure: return nil
        }
    }

    static func repos(_ provider: MoyaProvider<GitHub>, user: String) async throws -> [Repo] {
        let response = try await provider.asyncRequest(.userRepositories(user))
        return try response.filterSuccessfulStatusCodes().map([Repo].self)
    }
}
