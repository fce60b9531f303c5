// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Smaller idioms seen across apps: AF with the full request signature, debugPrint of responses,
// closure validators, DataResponse accessors, getAllTasks on the underlying URLSession, an AFError
// switch over nested errors.
import Foundation
import TapedeckClient

struct ServerMessage: Decodable, Sendable {
    let message: String
}

struct ServerSideError: Error {
    let message: String
}

enum Idioms {
    static func fullSignature(completion: @escaping @Sendable (String) -> Void) {
        AF.request("https://api.example.com/status", method: .get, parameters: nil, encoding: URLEncoding.default,
                   headers: nil, interceptor: nil, requestModifier: nil)
            .validate { _, response, data in
                guard (200..<300).contains(response.statusCode) else {
                    let message = data.flatMap { try? JSONDecoder().decode(ServerMessage.self, from: $0) }?.message
                    return .failure(ServerSideError(message: message ?? "unknown"))
                }
                return .success(())
            }
            .responseData { response in
                debugPrint(response)
                switch response.result {
                case .success(let data):
                    completion(String(decoding: data, as: UTF8.self))
                case .failure(let error):
                    if let serverError = error.underlyingError as? ServerSideError {
                        completion("server: \(serverError.message)")
                    } else if error.isResponseValidationError {
                        completion("validation: \(error.responseCode ?? 0)")
                    } else {
                        completion("error")
                    }
                }
            }
    }

    static func parametersAsJSONWithBody(completion: @escaping @Sendable (Int?) -> Void) {
        let parameters: Parameters = ["name": "x", "nested": ["a": 1], "list": [1, 2]]
        AF.request("https://api.example.com/things", method: .post, parameters: parameters,
                   encoding: JSONEncoding.prettyPrinted, headers: ["Accept": "application/json"])
            .validate(statusCode: 200...299)
            .response { response in
                completion(response.response?.statusCode)
            }
    }

    static func queryStringOnPost(completion: @escaping @Sendable (Bool) -> Void) {
        AF.request("https://api.example.com/things", method: .post, parameters: ["dry_run": true],
                   encoding: URLEncoding.queryString)
            .response { response in
                completion(response.error == nil)
            }
    }

    static func httpBodyForm(completion: @escaping @Sendable (Bool) -> Void) {
        AF.request("https://api.example.com/form", method: .post, parameters: ["a": "1 2"],
                   encoding: URLEncoding.httpBody)
            .response { response in
                completion(response.error == nil)
            }
    }

    static func responseAccessors(completion: @escaping @Sendable ([String]) -> Void) {
        AF.request("https://api.example.com/status").responseString { response in
            var facts: [String] = []
            facts.append(response.request?.url?.absoluteString ?? "-")
            facts.append("\(response.response?.statusCode ?? 0)")
            facts.append(response.response?.value(forHTTPHeaderField: "Content-Type") ?? "-")
            facts.append(response.response?.headers["Content-Type"] ?? "-")
            facts.append(response.value ?? "-")
            facts.append(response.error == nil ? "no error" : "error")
            _ = response.serializationDuration
            _ = response.metrics
            completion(facts)
        }
    }

    static func cancelAllTasks() {
        Session.default.session.getAllTasks { tasks in
            tasks.forEach { $0.cancel() }
        }
    }

    static func statusCodeFromError(_ error: any Error) -> Int? {
        if let afError = error.asAFError {
            switch afError {
            case .responseValidationFailed(reason: .unacceptableStatusCode(let code)):
                return code
            case .explicitlyCancelled:
                return -999
            case .requestRetryFailed(let retryError, _):
                return statusCodeFromError(retryError)
            case .invalidURL(let url):
                return url.urlString.isEmpty ? -1 : -2
            default:
                return afError.responseCode
            }
        }
        return nil
    }
}

extension URLConvertible {
    var urlString: String {
        (try? asURL().absoluteString) ?? ""
    }
}
