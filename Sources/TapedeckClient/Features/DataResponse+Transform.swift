public import Foundation
public import TapedeckHTTP
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// Alamofire's DataResponse API beyond its fields: building one with a TimeInterval, mapping its
// result, and describing it.

extension DataResponse {
    /// A response from its parts, with the serialization time in seconds (Alamofire's spelling;
    /// handy for responses built in tests).
    public init(request: URLRequest?, response: HTTPURLResponse?, data: Data?, metrics: TransferMetrics?,
                serializationDuration: TimeInterval, result: Result<Success, Failure>) {
        self.init(request: request, response: response, data: data, metrics: metrics,
                  serializationDuration: .seconds(serializationDuration), result: result)
    }

    /// The same response with its value transformed (a failure stays as it is).
    public func map<NewSuccess>(_ transform: (Success) -> NewSuccess) -> DataResponse<NewSuccess, Failure> {
        replacing(result.map(transform))
    }

    /// The same response with its value transformed by a closure that may throw; a thrown error
    /// becomes the failure.
    public func tryMap<NewSuccess>(_ transform: (Success) throws -> NewSuccess) -> DataResponse<NewSuccess, any Error> {
        replacing(result.mapError { $0 as any Error }.flatMap { value in Result { try transform(value) } })
    }

    /// The same response with its error transformed (a success stays as it is).
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> DataResponse<Success, NewFailure> {
        replacing(result.mapError(transform))
    }

    /// The same response with its error transformed by a closure that may throw; a thrown error
    /// becomes the failure.
    public func tryMapError<NewFailure: Error>(_ transform: (Failure) throws -> NewFailure) -> DataResponse<Success, any Error> {
        replacing(result.flatMapError { error in
            Result<Success, any Error> { throw try transform(error) }
        })
    }

    private func replacing<NewSuccess, NewFailure: Error>(_ result: Result<NewSuccess, NewFailure>) -> DataResponse<NewSuccess, NewFailure> {
        DataResponse<NewSuccess, NewFailure>(request: request, response: response, data: data, metrics: metrics,
                                             serializationDuration: serializationDuration, result: result)
    }
}

extension DataResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The result as Swift prints it, as Alamofire 5 writes it: `success(<value>)` or
    /// `failure(<error>)` (loggers that print `"\(response)"` read the same text).
    public var description: String {
        "\(result)"
    }

    /// The request, the response (status, headers, body size), the durations and the result, one per line.
    public var debugDescription: String {
        let requestLine = request.map { "\($0.httpMethod ?? "GET") \($0.url?.absoluteString ?? "-")" } ?? "nil"
        let requestBody = request?.httpBody.map { "\($0.count) bytes" } ?? "None"
        let responseLines: String
        if let response {
            let headers = response.headers.sorted().map { "    \($0.name): \($0.value)" }.joined(separator: "\n")
            responseLines = "[Response]:\n    [Status Code]: \(response.statusCode)\n    [Headers]:\n\(headers)\n    [Body]: \(data.map { "\($0.count) bytes" } ?? "None")"
        } else {
            responseLines = "[Response]: None"
        }
        // In seconds with an `s`, as Alamofire prints them ("None" without metrics).
        let network = metrics.map { "\($0.taskDuration.timeInterval)s" } ?? "None"
        return """
            [Request]: \(requestLine)
                [Body]: \(requestBody)
            \(responseLines)
            [Network Duration]: \(network)
            [Serialization Duration]: \(serializationDuration.timeInterval)s
            [Result]: \(description)
            """
    }
}
