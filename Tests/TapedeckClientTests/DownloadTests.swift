import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads through a real URLSession and the bridge: the file at its destination, the
/// destination's options, validation, serializers on the file, failures, retries.
@Suite("Pipeline: downloads to files")
struct DownloadTests {
    struct Report: Decodable, Sendable, Equatable {
        let pages: Int
    }

    static let reportJSON = #"{"pages":12}"#

    static func serveReport(_ fixture: ClientFixture, statuses: [Int] = []) -> Box<Int> {
        let calls = Box(0)
        fixture.network.route(host: "api.test", path: "/report.json") { _, _ in
            calls.mutate { $0 += 1 }
            let status = calls.value <= statuses.count ? statuses[calls.value - 1] : 200
            let body = status == 200 ? reportJSON : #"{"busy":true}"#
            return .response(ResponsePlan(status: status, headers: [("Content-Type", "application/json"), ("Content-Length", "\(body.utf8.count)")],
                                          body: Data(body.utf8)))
        }
        return calls
    }

    @Test("the body lands at the destination (directories made, an old file replaced); URL, data and Decodable read it")
    func toDestination() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("nested/deeper/report.json")
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("stale".utf8).write(to: target)
        let fixture = ClientFixture()
        _ = Self.serveReport(fixture)
        let url = Box<URL?>(nil), data = Box<Data?>(nil), report = Box<Report?>(nil), progress = Box<[Int64]>([])
        fixture.session.download("http://api.test/report.json", to: { _, _ in (target, [.removePreviousFile, .createIntermediateDirectories]) })
            .validate()
            .downloadProgress { p in progress.mutate { $0.append(p.completedUnitCount) } }
            .responseURL { url.value = $0.value }
            .responseData { data.value = $0.value }
            .responseDecodable(of: Report.self) { report.value = $0.value }
        try fixture.run()
        #expect(url.value == target)
        #expect(try Data(contentsOf: target) == Data(Self.reportJSON.utf8))
        #expect(data.value == Data(Self.reportJSON.utf8))
        #expect(report.value == Report(pages: 12))
        #expect(progress.value.last == Int64(Self.reportJSON.utf8.count))
        let names = fixture.events.names
        let finished = try #require(names.firstIndex(of: "didFinishDownloading"))
        let destination = try #require(names.firstIndex(of: "didCreateDestinationURL"))
        let validated = try #require(names.firstIndex(of: "didValidateRequest"))
        #expect(destination < finished && finished < validated, "Alamofire's order: destination, finished (with the final file), validation")
        #expect(fixture.events.details(of: "didCreateDestinationURL") == ["report.json"])
    }

    @Test("without a destination the file stays in the temporary directory, named Alamofire_…")
    func defaultDestination() throws {
        let fixture = ClientFixture()
        _ = Self.serveReport(fixture)
        let file = Box<URL?>(nil)
        fixture.session.download("http://api.test/report.json").response { file.value = $0.fileURL }
        try fixture.run()
        let url = try #require(file.value)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(url.lastPathComponent.hasPrefix("Alamofire_CFNetworkDownload_"))
        // The temporary name is random (as CFNetwork's); the event says where, the same on every run.
        let again = ClientFixture()
        _ = Self.serveReport(again)
        let second = Box<URL?>(nil)
        again.session.download("http://api.test/report.json").response { second.value = $0.fileURL }
        try again.run()
        defer { if let other = second.value { try? FileManager.default.removeItem(at: other) } }
        #expect(again.events.details(of: "didCreateDestinationURL") == ["temporary file"])
        #expect(fixture.events.details(of: "didCreateDestinationURL") == ["temporary file"])
        #expect(try Data(contentsOf: url) == Data(Self.reportJSON.utf8))
    }

    @Test("a file already at the destination without removePreviousFile: the move fails, the old file stays")
    func moveFails() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("report.json")
        try Data("keep me".utf8).write(to: target)
        let fixture = ClientFixture()
        _ = Self.serveReport(fixture)
        let error = Box<ClientError?>(nil)
        fixture.session.download("http://api.test/report.json", to: { _, _ in (target, []) }).responseURL { error.value = $0.error }
        try fixture.run()
        guard case let .downloadedFileMoveFailed(_, source, destination)? = error.value else {
            Issue.record("expected downloadedFileMoveFailed, got \(String(describing: error.value))")
            return
        }
        #expect(destination == target)
        #expect(!FileManager.default.fileExists(atPath: source.path), "the temporary file is not left behind")
        #expect(try Data(contentsOf: target) == Data("keep me".utf8))
        #expect(fixture.events.details(of: "didFinishDownloading") == ["downloadedFileMoveFailed(report.json)"],
                "one finish, with the failure, named without its directory")
    }

    @Test("a transport failure leaves no file: URL and data serializers report the task's error")
    func transportFailure() throws {
        let fixture = ClientFixture()
        fixture.network.route(host: "api.test", path: "/lost") { _, _ in .failure(.networkConnectionLost) }
        let urlError = Box<ClientError?>(nil), fileURL = Box<URL?>(URL(fileURLWithPath: "/x"))
        fixture.session.download("http://api.test/lost").responseURL { response in
            urlError.value = response.error
            fileURL.value = response.fileURL
        }
        try fixture.run()
        #expect(fileURL.value == nil)
        #expect(urlError.value?.urlError?.code == .networkConnectionLost)
    }

    @Test("a retried download writes the answer of the attempt that succeeded; a 404 fails validation with its body on disk")
    func retryAndValidation() throws {
        let fixture = ClientFixture(interceptor: RetryPolicy(retryLimit: 1))
        let calls = Self.serveReport(fixture, statuses: [503])
        let result = Box<AFDownloadResponse<Report>?>(nil)
        fixture.session.download("http://api.test/report.json").validate().responseDecodable(of: Report.self) { result.value = $0 }
        try fixture.run()
        #expect(calls.value == 2)
        #expect(result.value?.value == Report(pages: 12))
        if let file = result.value?.fileURL { try? FileManager.default.removeItem(at: file) }

        let failing = ClientFixture()
        failing.network.stub(host: "api.test", path: "/missing", ResponsePlan(status: 404, body: Data("nope".utf8)))
        let failed = Box<AFDownloadResponse<URL>?>(nil)
        failing.session.download("http://api.test/missing").validate(statusCode: [200]).responseURL { failed.value = $0 }
        try failing.run()
        #expect(failed.value?.error?.responseCode == 404)
        let kept = try #require(failed.value?.fileURL)
        #expect(try Data(contentsOf: kept) == Data("nope".utf8))
        try? FileManager.default.removeItem(at: kept)
    }

    @Test("an empty body is an empty file; a body in many chunks is written whole, as it arrives")
    func emptyAndChunked() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = ClientFixture()
        fixture.network.stub(host: "api.test", path: "/empty", ResponsePlan(status: 204))
        let big = Data((0..<300_000).map { UInt8($0 % 241) })
        fixture.network.stub(host: "api.test", path: "/big", options: RouteOptions(bandwidth: 100_000),
                             ResponsePlan(status: 200, headers: [("Content-Length", "\(big.count)")], body: big))
        let empty = directory.appendingPathComponent("empty.bin"), whole = directory.appendingPathComponent("big.bin")
        let chunks = Box(0)
        fixture.session.download("http://api.test/empty", to: { _, _ in (empty, []) }).response { _ in }
        fixture.session.download("http://api.test/big", to: { _, _ in (whole, []) })
            .downloadProgress { _ in chunks.mutate { $0 += 1 } }.response { _ in }
        try fixture.run()
        #expect(try Data(contentsOf: empty).isEmpty)
        #expect(try Data(contentsOf: whole) == big)
        #expect(chunks.value > 1, "the body came in several pieces")
    }

    @Test("awaiting a download: the file's URL and its decoded contents")
    func awaited() async throws {
        let fixture = ClientFixture()
        _ = Self.serveReport(fixture)
        let fileTask = fixture.session.download("http://api.test/report.json").serializingDownloadedFileURL()
        let decodedTask = fixture.session.download("http://api.test/report.json").validate().serializingDecodable(Report.self)
        try fixture.run()
        let file = try await fileTask.value
        #expect(try Data(contentsOf: file) == Data(Self.reportJSON.utf8))
        #expect(try await decodedTask.value == Report(pages: 12))
        try? FileManager.default.removeItem(at: file)
        if let other = await decodedTask.response.fileURL { try? FileManager.default.removeItem(at: other) }
    }
}
