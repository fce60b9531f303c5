// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// An async/await network layer: serializingDecodable with a snake-case decoder, DataResponse
// handling, a typed API error, a generic `send` over an Encodable body.
import Foundation
import TapedeckClient

struct APIErrorBody: Decodable, Sendable, Error {
    let message: String
}

enum APIFailure: Error {
    case server(status: Int, message: String?)
    case transport(AFError)
}

struct UserProfile: Codable, Sendable, Equatable {
    let userId: Int
    let displayName: String
}

struct ProfilePatch: Encodable, Sendable {
    let displayName: String
}

final class ProfileAPI: Sendable {
    private let session: Session
    private let baseURL = URL(string: "https://api.example.com")!

    init(session: Session) {
        self.session = session
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    func profile(id: Int) async throws -> UserProfile {
        let url = baseURL.appendingPathComponent("profiles/\(id)")
        return try await session.request(url)
            .validate()
            .serializingDecodable(UserProfile.self, decoder: ProfileAPI.decoder)
            .value
    }

    func update(id: Int, patch: ProfilePatch) async -> Result<UserProfile, APIFailure> {
        let request = session.request(baseURL.appendingPathComponent("profiles/\(id)"),
                                      method: .patch,
                                      parameters: patch,
                                      encoder: JSONParameterEncoder(encoder: ProfileAPI.encoder),
                                      headers: ["X-Client": "ios"])
        let response = await request.validate().serializingDecodable(UserProfile.self, decoder: ProfileAPI.decoder).response
        switch response.result {
        case .success(let profile):
            return .success(profile)
        case .failure(let error):
            if let status = response.response?.statusCode, let data = response.data {
                let body = try? JSONDecoder().decode(APIErrorBody.self, from: data)
                return .failure(.server(status: status, message: body?.message))
            }
            return .failure(.transport(error))
        }
    }

    func ping() async -> String? {
        let task = session.request(baseURL.appendingPathComponent("ping")).serializingString()
        let result = await task.result
        return try? result.get()
    }

    func deleteAll() async throws {
        _ = try await session.request(baseURL.appendingPathComponent("profiles"), method: .delete)
            .validate()
            .serializingDecodable(Empty.self, emptyResponseCodes: [200, 204])
            .value
    }
}
