// App code written against Moya 15: only the import line differs (`import Moya` → `import TapedeckProvider`).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TapedeckProvider

/// The signed-in user's token, read by the access-token plugin for every request.
final class TokenStore: Sendable {
    private let current: Mutex<String>

    init(token: String) {
        current = Mutex(token)
    }

    var token: String { current.withLock { $0 } }

    func update(_ token: String) {
        current.withLock { $0 = token }
    }
}

/// Stamps requests with the app's version, and turns a 200 whose body says `{"error": …}` into a
/// status-code failure (the backend does that for read-only accounts).
struct AppHeadersPlugin: PluginType {
    let appVersion: String

    func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
        var request = request
        request.setValue(appVersion, forHTTPHeaderField: "X-App-Version")
        return request
    }

    func process(_ result: Result<Response, MoyaError>, target: any TargetType) -> Result<Response, MoyaError> {
        guard case let .success(response) = result,
              let body = try? response.mapJSON() as? [String: Any],
              body["error"] != nil else { return result }
        return .failure(.statusCode(response))
    }
}

/// Counts requests in flight, as a spinner needs.
final class ActivityTracker: Sendable {
    private let state = Mutex((inFlight: 0, peak: 0))

    var inFlight: Int { state.withLock { $0.inFlight } }
    var peak: Int { state.withLock { $0.peak } }

    var plugin: NetworkActivityPlugin {
        NetworkActivityPlugin { [self] change, _ in
            state.withLock { state in
                switch change {
                case .began:
                    state.inFlight += 1
                    state.peak = max(state.peak, state.inFlight)
                case .ended:
                    state.inFlight -= 1
                }
            }
        }
    }
}

/// The logger set-up the app ships: verbose, bodies pretty-printed, entries handed to `write`.
func makeLogger(write: @escaping @Sendable (String) -> Void) -> NetworkLoggerPlugin {
    let configuration = NetworkLoggerPlugin.Configuration(
        formatter: .init(responseData: { data in
            guard let object = try? JSONSerialization.jsonObject(with: data),
                  let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
                return String(decoding: data, as: UTF8.self)
            }
            return String(decoding: pretty, as: UTF8.self)
        }),
        output: { target, items in
            for item in items { write("[\(target.path)] \(item)") }
        },
        logOptions: .verbose)
    return NetworkLoggerPlugin(configuration: configuration)
}
