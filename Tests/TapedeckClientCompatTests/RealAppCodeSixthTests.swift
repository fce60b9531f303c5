import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import TapedeckHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A sixth round of open-source network layers, re-typed in our own words: an app's own response
// serializer wrapping Alamofire's JSON serializer and handing its `Any` to a SwiftyJSON-style
// wrapper (StepicOrg/stepik-ios, DataRequest+ResponseSwiftyJSON.swift), and a ClosureEventMonitor
// subclass overriding event methods and calling super (a logging monitor of an app).

/// A SwiftyJSON-shaped wrapper: it reads Foundation's JSON objects and nothing else (anything
/// else is unknown), as SwiftyJSON's `JSON(_: Any)` does.
struct LooseJSON {
    let object: Any?
    init(_ object: Any) {
        switch object {
        case is [String: Any], is [Any], is String, is NSNumber, is NSNull: self.object = object
        default: self.object = nil
        }
    }
    subscript(key: String) -> LooseJSON { LooseJSON((object as? [String: Any])?[key] ?? NSNull()) }
    subscript(index: Int) -> LooseJSON {
        guard let list = object as? [Any], list.indices.contains(index) else { return LooseJSON(NSNull()) }
        return LooseJSON(list[index])
    }
    var isUnknown: Bool { object == nil }
    var stringValue: String { object as? String ?? "" }
    var int64Value: Int64 { (object as? NSNumber)?.int64Value ?? 0 }
}

/// The app's serializer: Alamofire's JSON serializer inside, its `Any` wrapped (Stepik's shape).
struct LooseJSONSerializer: ResponseSerializer {
    let jsonSerializer: JSONResponseSerializer
    init(options: JSONSerialization.ReadingOptions = .allowFragments) {
        jsonSerializer = JSONResponseSerializer(dataPreprocessor: JSONResponseSerializer.defaultDataPreprocessor,
                                                emptyResponseCodes: JSONResponseSerializer.defaultEmptyResponseCodes,
                                                emptyRequestMethods: JSONResponseSerializer.defaultEmptyRequestMethods, options: options)
    }
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: (any Error)?) throws -> String {
        let json = try jsonSerializer.serialize(request: request, response: response, data: data, error: error)
        let wrapped = LooseJSON(json)
        return wrapped.isUnknown ? "unknown" : "\(wrapped["users"][0]["first_name"].stringValue) #\(wrapped["users"][0]["id"].int64Value)"
    }
}

/// A logging monitor that is a ClosureEventMonitor subclass: it overrides two events and calls
/// super, so the closures set on it still run.
final class LoggingClosureMonitor: ClosureEventMonitor, @unchecked Sendable {
    let lines = Box<[String]>([])
    override func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
        super.request(request, didCreateURLRequest: urlRequest)
        lines.value.append("curl: \(urlRequest.httpMethod ?? "") \(urlRequest.url?.path ?? "")")
    }
    override func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        super.urlSession(session, dataTask: dataTask, didReceive: data)
        lines.value.append("data: \(data.count)")
    }
}

@Suite("Real app code, sixth round: a SwiftyJSON-style serializer over JSONResponseSerializer; a ClosureEventMonitor subclass")
struct RealAppCodeSixthTests {
    @Test("an app's serializer wrapping JSONResponseSerializer gets Foundation's objects, as from Alamofire (a 64-bit id intact); options: is taken")
    func wrappedJSONSerializer() throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/api/users") { _ in .json(200, #"{"users": [{"id": 9007199254740993, "first_name": "Ada"}]}"#) }
        let session = backend.withTransport { Session() }
        let result = Box<String?>(nil)
        session.request("https://api.example.com/api/users").response(responseSerializer: LooseJSONSerializer(options: [.fragmentsAllowed])) {
            result.value = try? $0.result.get()
        }
        try backend.run()
        #expect(result.value == "Ada #9007199254740993")
        // Through the protocol (a generic caller), the serializer still yields the Sendable ClientJSON.
        func generic<S: ResponseSerializer>(_ serializer: S, _ data: Data) throws -> S.SerializedObject {
            try serializer.serialize(request: nil, response: nil, data: data, error: nil)
        }
        #expect(try generic(JSONResponseSerializer(), Data("[1]".utf8)) == ClientJSON.array([.number(1)]))
        // options: is the JSONSerialization's: without .fragmentsAllowed a bare number is refused.
        #expect((try? LooseJSONSerializer().serialize(request: nil, response: nil, data: Data("3".utf8), error: nil)) != nil)
        #expect(throws: ClientError.self) {
            try LooseJSONSerializer(options: []).serialize(request: nil, response: nil, data: Data("3".utf8), error: nil)
        }
    }

    @Test("a ClosureEventMonitor subclass's overrides are called, and super keeps the closures running")
    func monitorSubclass() throws {
        let backend = SimulatedBackend()
        backend.serve(path: "/items") { _ in .json(200, #"{"ok": true}"#) }
        let monitor = LoggingClosureMonitor()
        let created = Box<Int>(0)
        monitor.requestDidCreateURLRequest = { _, _ in created.value += 1 }
        let session = backend.withTransport { Session(eventMonitors: [monitor]) }
        let described = Box<String>("")
        session.request("https://api.example.com/items").responseData { described.value = $0.debugDescription }
        try backend.run()
        #expect(monitor.lines.value == ["curl: GET /items", "data: 12"], "\(monitor.lines.value)")
        // Durations as Alamofire prints them: seconds with an `s`.
        #expect(described.value.contains("[Network Duration]: 0.0s") && described.value.contains("[Serialization Duration]: 0.0s"), "\(described.value)")
        #expect(created.value == 1, "the closure ran through super")
    }
}
