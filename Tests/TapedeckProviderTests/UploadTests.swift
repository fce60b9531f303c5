import Foundation
import Testing
import TapedeckHTTP
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Moya's upload tasks, written as Moya 15 apps write them, sent through the simulated network.
@Suite("Provider: upload tasks (file, multipart, composite multipart), download tasks and progress")
struct ProviderUploadTests {
    enum Media: TargetType {
        case avatar(Data, caption: String)
        case document(URL)
        case tagged([MultipartFormData], tags: [String])

        var baseURL: URL { URL(string: "http://api.test")! }
        var path: String { "/media" }
        var method: Moya.Method { .post }
        var task: Task {
            switch self {
            case let .avatar(image, caption):
                .uploadMultipart([
                    MultipartFormData(provider: .data(Data(caption.utf8)), name: "caption"),
                    MultipartFormData(provider: .data(image), name: "avatar", fileName: "avatar.png", mimeType: "image/png"),
                ])
            case let .document(url): .uploadFile(url)
            case let .tagged(parts, tags): .uploadCompositeMultipart(parts, urlParameters: ["tags": tags.joined(separator: ",")])
            }
        }
        var headers: [String: String]? { nil }
    }

    struct Received: Sendable, Equatable {
        let target: String
        let contentType: String?
        let body: Data?
    }

    static func serveMedia(_ world: World) -> Box<[Received]> {
        let received = Box<[Received]>([])
        world.network.route(host: "api.test", path: "/media") { request, _ in
            received.mutate { $0.append(Received(target: request.url.path + (request.url.query.map { "?" + $0 } ?? ""),
                                                 contentType: request.headerFields[.contentType], body: request.body)) }
            return .response(ResponsePlan(status: 201, headers: [("Content-Length", "2")], body: Data("ok".utf8)))
        }
        return received
    }

    @Test("a multipart target sends the form its parts make, with the form's Content-Type; progress runs, then completes")
    func multipart() throws {
        let world = World()
        let received = Self.serveMedia(world)
        let provider = MoyaProvider<Media>(session: world.session)
        let image = Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 3])
        let reports = Box<[String]>([])
        let status = Box<Int?>(nil)
        provider.request(.avatar(image, caption: "me"), progress: { report in
            let sent = report.progressObject?.completedUnitCount ?? -1
            reports.mutate { $0.append(report.completed ? "completed \(sent)" : "\(sent)") }
        }) { status.value = try? $0.get().statusCode }
        try world.run()
        let expected = RequestMultipartFormData()
        expected.append(Data("me".utf8), withName: "caption")
        expected.append(image, withName: "avatar", fileName: "avatar.png", mimeType: "image/png")
        #expect(status.value == 201)
        #expect(received.value == [Received(target: "/media", contentType: expected.contentType, body: try expected.encode())])
        #expect(reports.value.last == "completed \(try expected.encode().count)", "the last report has the response and the upload's Progress, as Moya's")
        #expect(reports.value.dropLast().contains(String(try expected.encode().count)), "the body sent, before the response: \(reports.value)")
    }

    @Test("a file target sends the file; a composite multipart target puts its URL parameters in the query")
    func fileAndComposite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-provider-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.pdf")
        try Data("%PDF-1.4 tiny".utf8).write(to: file)
        let world = World()
        let received = Self.serveMedia(world)
        let provider = MoyaProvider<Media>(session: world.session)
        provider.request(.document(file)) { _ in }
        provider.request(.tagged([MultipartFormData(provider: .file(file), name: "doc")], tags: ["a", "b"])) { _ in }
        try world.run()
        #expect(received.value.count == 2)
        #expect(received.value.first?.body == Data("%PDF-1.4 tiny".utf8))
        let composite = try #require(received.value.last)
        #expect(composite.target == "/media?tags=a%2Cb")
        let text = String(decoding: composite.body ?? Data(), as: UTF8.self)
        #expect(text.contains("Content-Disposition: form-data; name=\"doc\"; filename=\"report.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 tiny"))
    }

    /// Moya master's spelling: a whole form (`MultipartFormData(parts:)` or an array literal of
    /// `MultipartFormBodyPart`s) with its own boundary.
    enum MasterMedia: TargetType {
        case avatar(Data)
        case tagged(Data, tags: String)

        var baseURL: URL { URL(string: "http://api.test")! }
        var path: String { "/media" }
        var method: Moya.Method { .post }
        var task: Task {
            switch self {
            case let .avatar(image):
                .uploadMultipartFormData([
                    MultipartFormBodyPart(provider: .data(Data("me".utf8)), name: "caption"),
                    MultipartFormBodyPart(provider: .data(image), name: "avatar", fileName: "avatar.png", mimeType: "image/png"),
                ])
            case let .tagged(image, tags):
                .uploadCompositeMultipartFormData(
                    Moya.MultipartFormData(boundary: "tapedeck.boundary.1", parts: [MultipartFormBodyPart(provider: .data(image), name: "file")]),
                    urlParameters: ["tags": tags])
            }
        }
        var headers: [String: String]? { nil }
    }

    @Test("Moya master's whole-form tasks send the form their parts make; a composite one puts its URL parameters in the query and keeps the form's boundary")
    func masterMultipart() throws {
        let world = World()
        let received = Self.serveMedia(world)
        let provider = MoyaProvider<MasterMedia>(session: world.session)
        let image = Data([0x89, 0x50, 0x4E, 0x47])
        provider.request(.avatar(image)) { _ in }
        provider.request(.tagged(image, tags: "a,b")) { _ in }
        try world.run()
        let expected = RequestMultipartFormData()
        expected.append(Data("me".utf8), withName: "caption")
        expected.append(image, withName: "avatar", fileName: "avatar.png", mimeType: "image/png")
        #expect(received.value.first == Received(target: "/media", contentType: expected.contentType, body: try expected.encode()))
        let composite = try #require(received.value.last)
        #expect(composite.target == "/media?tags=a%2Cb")
        #expect(composite.contentType == "multipart/form-data; boundary=tapedeck.boundary.1")
        let text = String(decoding: composite.body ?? Data(), as: UTF8.self)
        #expect(text.hasPrefix("--tapedeck.boundary.1\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n"), "\(text)")
    }

    @Test("two different uploads to one URL are different endpoints, so inflight tracking never merges them")
    func uploadsNotMerged() throws {
        let world = World()
        let received = Self.serveMedia(world)
        let provider = MoyaProvider<Media>(session: world.session, trackInflights: true)
        provider.request(.avatar(Data([1]), caption: "one")) { _ in }
        provider.request(.avatar(Data([2]), caption: "two")) { _ in }
        provider.request(.avatar(Data([2]), caption: "two")) { _ in }
        try world.run()
        #expect(received.value.count == 2, "the two equal uploads share one flight; the different one has its own")
        #expect(provider.endpoint(.avatar(Data([1]), caption: "one")) != provider.endpoint(.avatar(Data([2]), caption: "two")))
    }

    enum Files: TargetType {
        case report(to: URL)
        case export(format: String, to: URL)

        var baseURL: URL { URL(string: "http://api.test")! }
        var path: String { "/files/report" }
        var method: Moya.Method { .get }
        var task: Task {
            switch self {
            case let .report(file):
                .downloadDestination { _, _ in (file, [.removePreviousFile, .createIntermediateDirectories]) }
            case let .export(format, file):
                .downloadParameters(parameters: ["format": format], encoding: URLEncoding.queryString,
                                    destination: { _, _ in (file, [.createIntermediateDirectories]) })
            }
        }
        var headers: [String: String]? { nil }
        var validationType: ValidationType { .successCodes }
    }

    @Test("download targets write the body to their destination; the Response has the status and no data, as Moya's")
    func downloads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-provider-download-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let world = World()
        world.network.route(host: "api.test", path: "/files/report") { request, _ in
            .response(ResponsePlan(status: 200, body: Data("report as \(request.url.query ?? "pdf")".utf8)))
        }
        let provider = MoyaProvider<Files>(session: world.session)
        let plain = directory.appendingPathComponent("a/report.pdf"), csv = directory.appendingPathComponent("b/report.csv")
        let results = Box<[String]>([])
        provider.request(.report(to: plain)) { result in
            results.mutate { $0.append((try? result.get()).map { "\($0.statusCode) \($0.data.count)" } ?? "failed") }
        }
        provider.request(.export(format: "csv", to: csv)) { result in
            results.mutate { $0.append((try? result.get()).map { "\($0.statusCode) \($0.data.count)" } ?? "failed") }
        }
        try world.run()
        #expect(results.value == ["200 0", "200 0"])
        #expect(try Data(contentsOf: plain) == Data("report as pdf".utf8))
        #expect(try Data(contentsOf: csv) == Data("report as format=csv".utf8))
    }
}
