import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Resuming a download: a cancel that asks for resume data keeps what arrived; resuming asks for
/// the rest with Range and If-Range, appends a 206, starts again on a 200, and refuses data that is
/// not resume data — through a real URLSession and the bridge, on the virtual clock.
@Suite("Pipeline: resuming downloads")
struct DownloadResumeTests {
    static let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

    /// 10,000 bytes at 1,000 bytes a second (100-byte slices); `honoursRange`: a Range from an
    /// offset with the right If-Range gets a 206 of the rest. Returns the Range headers seen.
    static func serve(_ fixture: ClientFixture, honoursRange: Bool = true) -> Box<[String]> {
        let ranges = Box<[String]>([])
        fixture.network.route(host: "api.test", path: "/big.bin", options: RouteOptions(bandwidth: 1_000, chunkSize: 100)) { request, _ in
            let fields = request.urlRequest()
            let range = fields.value(forHTTPHeaderField: "Range"), ifRange = fields.value(forHTTPHeaderField: "If-Range")
            ranges.mutate { $0.append((range ?? "-") + " " + (ifRange ?? "-")) }
            let headers = [("Content-Type", "application/octet-stream"), ("ETag", "\"v1\""), ("Accept-Ranges", "bytes")]
            if honoursRange, let range, range.hasPrefix("bytes="), ifRange == "\"v1\"",
               let start = Int(range.dropFirst("bytes=".count).dropLast()) {
                let rest = body.subdata(in: start..<body.count)
                return .response(ResponsePlan(status: 206, headers: headers + [("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)"),
                                                                             ("Content-Length", "\(rest.count)")], body: rest))
            }
            return .response(ResponsePlan(status: 200, headers: headers + [("Content-Length", "\(body.count)")], body: body))
        }
        return ranges
    }

    /// Starts the download, cancels it at 3.05 s asking for resume data; returns the data.
    static func cancelled(_ fixture: ClientFixture) throws -> (data: Data?, handled: Data?, error: ClientError?) {
        let response = Box<DownloadResponse<URL?, ClientError>?>(nil), handled = Box<Data?>(nil)
        let download = fixture.session.download("http://api.test/big.bin").response { response.value = $0 }
        let queue = fixture.scheduler.makeQueue(label: "app", target: nil)
        queue.asyncAfter(delay: .milliseconds(3_050), named: "cancel") {
            download.cancel(byProducingResumeData: { handled.value = $0 })
        }
        try fixture.run()
        #expect(response.value?.resumeData == download.resumeData)
        return (download.resumeData, handled.value, response.value?.error)
    }

    @Test("cancel keeps the 3,000 bytes that arrived; resuming asks for the rest and the file is the whole body")
    func resumes() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = ClientFixture()
        let ranges = Self.serve(fixture)
        let (data, handled, error) = try Self.cancelled(fixture)
        #expect(error?.isExplicitlyCancelledError == true)
        let resumeData = try #require(data)
        #expect(handled == resumeData, "cancel(byProducingResumeData:) hands over the same data")

        let target = directory.appendingPathComponent("big.bin")
        let file = Box<URL?>(nil)
        fixture.session.download(resumingWith: resumeData, to: { _, _ in (target, []) }).validate().responseURL { file.value = $0.value }
        try fixture.run()
        #expect(file.value == target)
        #expect(try Data(contentsOf: target) == Self.body)
        #expect(ranges.value == ["- -", "bytes=3000- \"v1\""])
    }

    @Test("a server that answers the whole body again starts the file over (no bytes twice)")
    func serverIgnoresRange() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = ClientFixture()
        let ranges = Self.serve(fixture, honoursRange: false)
        let resumeData = try #require(try Self.cancelled(fixture).data)
        let target = directory.appendingPathComponent("big.bin")
        fixture.session.download(resumingWith: resumeData, to: { _, _ in (target, []) }).responseURL { _ in }
        try fixture.run()
        #expect(try Data(contentsOf: target) == Self.body)
        #expect(ranges.value.last == "bytes=3000- \"v1\"")
    }

    @Test("without asking, a cancel keeps nothing; data that is not resume data fails before any exchange")
    func noResumeData() throws {
        let fixture = ClientFixture()
        let ranges = Self.serve(fixture)
        let download = fixture.session.download("http://api.test/big.bin").response { _ in }
        fixture.scheduler.makeQueue(label: "app", target: nil).asyncAfter(delay: .seconds(2), named: "cancel") { download.cancel() }
        let failure = Box<ClientError?>(nil)
        fixture.session.download(resumingWith: Data("not resume data".utf8)).response { failure.value = $0.error }
        try fixture.run()
        #expect(download.resumeData == nil)
        guard case let .createURLRequestFailed(error)? = failure.value else {
            Issue.record("expected createURLRequestFailed, got \(String(describing: failure.value))")
            return
        }
        #expect(error is ResumeDataError)
        #expect(ranges.value == ["- -"], "only the first download reached the server")
    }

    @Test("a resumable download reset mid-way and retried goes on from what arrived each time; the file is whole, the progress counts it all")
    func retriedResumes() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = ClientFixture(interceptor: RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.1))
        let ranges = Self.serve(fixture)
        Self.resetting(fixture, first: 2, after: 3_000)   // the first two exchanges drop after 3,000 bytes of their body
        let target = directory.appendingPathComponent("big.bin")
        let file = Box<URL?>(nil), progress = Box<(Int64, Int64)>((0, 0))
        let download = fixture.session.download("http://api.test/big.bin", to: { _, _ in (target, []) })
            .downloadProgress { p in progress.value = (p.completedUnitCount, p.totalUnitCount) }
            .validate().responseURL { file.value = $0.value }
        try fixture.run()
        #expect(file.value == target)
        #expect(try Data(contentsOf: target) == Self.body)
        #expect(ranges.value == ["- -", "bytes=3000- \"v1\"", "bytes=6000- \"v1\""])
        #expect(download.retryCount == 2)
        #expect(progress.value == (10_000, 10_000))
    }

    @Test("cancel(byProducingResumeData:) while the retrier decides about a failed transfer hands the resume data over at the cancel")
    func resumeDataWhileRetrierDecides() throws {
        let scheduler = SimulatedScheduler(violationPolicy: .record)
        let clock = scheduler.makeQueue(label: "slow retrier", target: nil)
        // The transfer drops after 3,000 bytes (at 3 s); the retrier takes 2 s to say "retry".
        let fixture = ClientFixture(interceptor: Retrier { _, _, _, completion in clock.asyncAfter(delay: .seconds(2)) { completion(.retry) } },
                                    scheduler: scheduler)
        let ranges = Self.serve(fixture)
        Self.resetting(fixture, first: 1, after: 3_000)
        let handled = Box<[String]>([]), error = Box<ClientError?>(nil)
        let download = fixture.session.download("http://api.test/big.bin").response { error.value = $0.error }
        fixture.scheduler.makeQueue(label: "app", target: nil).asyncAfter(delay: .milliseconds(3_500), named: "cancel") {
            download.cancel(byProducingResumeData: { data in handled.mutate { $0.append("\(data != nil) at \(fixture.scheduler.now)") } })
        }
        try fixture.run()
        // Handed over at the cancel, not when the session is released (the handler never ran).
        #expect(handled.value == ["true at \(seconds(3.5))"])
        #expect(error.value?.isExplicitlyCancelledError == true)
        #expect(ranges.value == ["- -"], "no retry")
        #expect(download.resumeData != nil)
    }

    @Test("a resumable download that fails keeps its bytes and resume data; resuming sends its header fields again")
    func failureGivesResumeData() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = ClientFixture()
        let ranges = Self.serve(fixture)
        Self.resetting(fixture, first: 1, after: 4_000)
        let failed = Box<ClientError?>(nil)
        let download = fixture.session.download("http://api.test/big.bin", headers: ["X-Token": "abc"]).response { failed.value = $0.error }
        try fixture.run()
        #expect(failed.value?.isSessionTaskError == true)
        let data = try #require(download.resumeData)
        let target = directory.appendingPathComponent("big.bin")
        let resumed = fixture.session.download(resumingWith: data, to: { _, _ in (target, []) })
        resumed.responseURL { _ in }
        try fixture.run()
        #expect(try Data(contentsOf: target) == Self.body)
        #expect(ranges.value == ["- -", "bytes=4000- \"v1\""])
        #expect(resumed.request?.value(forHTTPHeaderField: "X-Token") == "abc")
    }

    @Test("resume data whose partial file is gone downloads the whole body again, without Range")
    func partialFileGone() throws {
        let directory = try MultipartFormDataTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = ClientFixture()
        let ranges = Self.serve(fixture)
        let resumeData = try #require(try Self.cancelled(fixture).data)
        let object = try JSONSerialization.jsonObject(with: resumeData) as? [String: Any]
        try FileManager.default.removeItem(atPath: try #require(object?["file"] as? String))
        let target = directory.appendingPathComponent("big.bin")
        fixture.session.download(resumingWith: resumeData, to: { _, _ in (target, []) }).validate().responseURL { _ in }
        try fixture.run()
        #expect(try Data(contentsOf: target) == Self.body)
        #expect(ranges.value == ["- -", "- -"])
    }

    /// Resets every exchange's body after `bytes` bytes (the first `count` exchanges).
    static func resetting(_ fixture: ClientFixture, first count: Int, after bytes: Int) {
        let heads = Box(0)
        fixture.network.faults = ClosureFaultHook { point, _, _ in
            switch point {
            case .responseHead:
                heads.mutate { $0 += 1 }
                return .proceed
            case let .bodyChunk(offset, _):
                return heads.value <= count && offset >= bytes ? .resetAfter(bytes: offset) : .proceed
            default:
                return .proceed
            }
        }
    }

    @Test("an app's own Range is not resumed: a retry asks for the same piece again, never bytes=N-")
    func ownRangeNotResumed() throws {
        let fixture = ClientFixture(interceptor: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.1))
        let ranges = Self.serve(fixture)
        Self.resetting(fixture, first: 1, after: 2_000)
        let download = fixture.session.download("http://api.test/big.bin", headers: ["Range": "bytes=0-4999"]).response { _ in }
        try fixture.run()
        #expect(ranges.value == ["bytes=0-4999 -", "bytes=0-4999 -"])
        #expect(download.resumeData == nil)
    }

    @Test("a 206 that does not start where the kept bytes end fails the download instead of making a wrong file")
    func mismatchedPart() throws {
        let fixture = ClientFixture()
        _ = Self.serve(fixture)
        let resumeData = try #require(try Self.cancelled(fixture).data)
        let other = ClientFixture()
        other.network.route(host: "api.test", path: "/big.bin") { _, _ in
            .response(ResponsePlan(status: 206, headers: [("Content-Range", "bytes 0-99/10000"), ("ETag", "\"v1\"")],
                                   body: Self.body.prefix(100)))
        }
        let failure = Box<ClientError?>(nil)
        other.session.download(resumingWith: resumeData).response { failure.value = $0.error }
        try other.run()
        guard case let .downloadedFileMoveFailed(error, _, _)? = failure.value else {
            Issue.record("expected the download to fail, got \(String(describing: failure.value))")
            return
        }
        #expect("\(error)".contains("not at byte 3000"), "\(error)")
    }

    @Test("a resumed download cancelled before a new byte still gives the resume data it went on from")
    func resumedCancelledAtOnce() throws {
        let fixture = ClientFixture()
        _ = Self.serve(fixture)
        let resumeData = try #require(try Self.cancelled(fixture).data)
        let again = fixture.session.download(resumingWith: resumeData).response { _ in }
        again.cancel(producingResumeData: true)
        try fixture.run()
        #expect(again.resumeData == resumeData)
    }
}
