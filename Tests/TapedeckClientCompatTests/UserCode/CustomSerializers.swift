// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// A custom ResponseSerializer, a DataRequest extension calling it, an envelope decoder,
// and the old `responseJSON` idiom.
import Foundation
import TapedeckClient

struct CommaDelimitedSerializer: ResponseSerializer {
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> [String] {
        let data = try DataResponseSerializer().serialize(request: request, response: response, data: data, error: error)
        return String(data: data, encoding: .utf8)?.components(separatedBy: ",") ?? []
    }
}

extension DataRequest {
    @discardableResult
    func responseCommaDelimited(queue: DispatchQueue = .main,
                                completionHandler: @escaping @Sendable (AFDataResponse<[String]>) -> Void) -> Self {
        response(queue: queue, responseSerializer: CommaDelimitedSerializer(), completionHandler: completionHandler)
    }
}

struct Envelope<T: Decodable>: Decodable {
    let data: T
}

struct EnvelopeSerializer<T: Decodable & Sendable>: ResponseSerializer {
    let decoder = JSONDecoder()
    let emptyResponseCodes: Set<Int> = EnvelopeSerializer.defaultEmptyResponseCodes
    let emptyRequestMethods: Set<HTTPMethod> = EnvelopeSerializer.defaultEmptyRequestMethods

    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> T {
        guard error == nil else { throw error! }
        guard let data = data, !data.isEmpty else {
            throw AFError.responseSerializationFailed(reason: .inputDataNilOrZeroLength)
        }
        do {
            return try decoder.decode(Envelope<T>.self, from: data).data
        } catch {
            throw AFError.responseSerializationFailed(reason: .decodingFailed(error: error))
        }
    }
}

enum LegacyJSON {
    static func names(session: Session, completion: @escaping @Sendable ([String]) -> Void) {
        session.request("https://api.example.com/names").responseJSON { response in
            switch response.result {
            case .success(let value):
                if let json = value as? [String: Any], let names = json["names"] as? [String] {
                    completion(names)
                } else {
                    completion([])
                }
            case .failure(let error):
                print(error.localizedDescription)
                completion([])
            }
        }
    }
}
