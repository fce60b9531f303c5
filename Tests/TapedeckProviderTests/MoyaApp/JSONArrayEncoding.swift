// App code written against Alamofire 5 (the custom encoding a Moya target uses): only the import
// line differs (`import Alamofire` → `import TapedeckClient`) — and `any` before protocol types,
// which this package's ExistentialAny setting asks for (without it, the bare spelling compiles).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

/// Sends the array under the `jsonArray` key as the whole JSON body.
struct JSONArrayEncoding: ParameterEncoding {
    static let `default` = JSONArrayEncoding()

    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let array = parameters?["jsonArray"] else { return request }
        request.httpBody = try JSONSerialization.data(withJSONObject: array, options: [])
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
