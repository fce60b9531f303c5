// App code as a Swift 5 project using Moya 15 writes it: `Moya.Task`, `Error` without `any`,
// `[String: Any]` parameters, completion handlers assigning captured state, a plugin class with
// mutable state. Only the import line differs from the Moya original.
import Foundation
import TapedeckProvider

enum WeatherAPI {
    case forecast(city: String, days: Int)
    case report(station: String, reading: [String: Any])
    case alerts
}

extension WeatherAPI: TargetType {
    var baseURL: URL { URL(string: "https://weather.example.com/v2")! }

    var path: String {
        switch self {
        case .forecast(let city, _): return "/forecast/\(city)"
        case .report(let station, _): return "/stations/\(station)/readings"
        case .alerts: return "/alerts"
        }
    }

    var method: Moya.Method {
        switch self {
        case .report: return .post
        default: return .get
        }
    }

    var task: Moya.Task {
        switch self {
        case .forecast(_, let days):
            return .requestParameters(parameters: ["days": days, "units": "metric"], encoding: URLEncoding.queryString)
        case .report(_, let reading):
            return .requestParameters(parameters: reading, encoding: JSONEncoding.default)
        case .alerts:
            return .requestPlain
        }
    }

    var headers: [String: String]? { ["Accept": "application/json"] }

    var sampleData: Data { Data(#"{"alerts":[]}"#.utf8) }
}

struct Forecast: Decodable, Equatable {
    let city: String
    let highs: [Int]
}

/// Counts what went out and what came back; a class with mutable state, as plugins often are.
final class RequestCounter: PluginType {
    var sent: [String] = []
    var statuses: [Int] = []

    func willSend(_ request: RequestType, target: TargetType) {
        sent.append(request.request?.url?.path ?? "?")
    }

    func didReceive(_ result: Result<Moya.Response, MoyaError>, target: TargetType) {
        if case .success(let response) = result { statuses.append(response.statusCode) }
    }
}

/// Signs each request: names `URLRequest`, which on Linux lives in FoundationNetworking (Moya's
/// import brings it along, so must TapedeckProvider's).
struct Signer: PluginType {
    func prepare(_ request: URLRequest, target: TargetType) -> URLRequest {
        var signed = request
        signed.setValue("app-1", forHTTPHeaderField: "X-Client")
        return signed
    }
}

/// A service whose completion handlers write its own state.
final class WeatherService {
    let provider: MoyaProvider<WeatherAPI>
    private(set) var lastForecast: Forecast?
    private(set) var errors: [Error] = []

    init(provider: MoyaProvider<WeatherAPI>) {
        self.provider = provider
    }

    func forecast(for city: String, completion: @escaping (Forecast?) -> Void) {
        provider.request(.forecast(city: city, days: 3)) { result in
            switch result {
            case .success(let response):
                do {
                    let forecast = try response.filterSuccessfulStatusCodes().map(Forecast.self)
                    self.lastForecast = forecast
                    completion(forecast)
                } catch {
                    self.errors.append(error)
                    completion(nil)
                }
            case .failure(let error):
                self.errors.append(error)
                completion(nil)
            }
        }
    }
}
