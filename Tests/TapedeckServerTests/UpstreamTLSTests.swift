import Foundation
import Testing
import TapedeckCassettes
import TapedeckLoopback
import TapedeckServer
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck record` in front of an `https` upstream: a real TLS server on 127.0.0.1 whose
/// certificate chains to the test-only authority in fixtures/tls (tools/make-test-certs).
@Suite("Server: recording an https upstream", .serialized)
struct UpstreamTLSTests {
    private let tls = fixturesDirectory.appendingPathComponent("tls")

    @Test("an https upstream whose certificate chains to --upstream-ca is recorded byte for byte and served back; without it the exchange is a -1202 failure and the client gets 502 naming the flag")
    func trustedAndUntrusted() async throws {
        let upstream = try await LoopbackServer.startTLS(certificate: tls.appendingPathComponent("server.pem"),
                                                         key: tls.appendingPathComponent("server-key.pem"))
        defer { upstream.stop() }
        try await blocking { try trustedAndUntrusted(upstream) }
    }

    private func trustedAndUntrusted(_ upstream: LoopbackServer) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        #expect(upstream.baseURL.scheme == "https")

        // Given the test authority, the proxy's TLS connection is verified and the exchanges pass.
        let cassette = directory.file("tls.har.gz")
        let proxy = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", cassette.path,
                                       "--upstream-ca", tls.appendingPathComponent("ca.pem").path])
        let small = try curl([proxy.base + "/get?via=tls"])
        let large = try curl([proxy.base + "/bytes/300000"])
        let gzip = try curl([proxy.base + "/gzip"])
        let direct = try curl(["--cacert", tls.appendingPathComponent("ca.pem").path, upstream.url("/bytes/300000").absoluteString])
        #expect(proxy.stop(SIGTERM) == 0, "\(proxy.errors)")
        #expect(small.code == 200 && large.code == 200 && gzip.code == 200, "\(proxy.errors)")
        #expect(String(decoding: small.body, as: UTF8.self).contains("via=tls"))
        #expect(direct.code == 200 && large.body == direct.body, "the proxied body is the upstream's, byte for byte")
        let recorded = try CassetteFile.read(cassette).interactions
        #expect(recorded.map { $0.request.url.scheme } == ["https", "https", "https"])
        #expect(recorded.map { $0.response?.status } == [200, 200, 200])
        #expect(recorded[1].response?.body == direct.body)

        let server = try ServerProcess(["serve", cassette.path, "--timing", "instant"])
        #expect(try curl([server.base + "/bytes/300000"]).body == direct.body, "served back as recorded")
        server.stop()

        // Without it, the certificate is not trusted: recorded as URLSession would report it.
        let refused = directory.file("untrusted.har.gz")
        let untrusting = try ServerProcess(["record", "--upstream", upstream.baseURL.absoluteString, "--cassette", refused.path])
        let answer = try curl([untrusting.base + "/get"])
        #expect(untrusting.stop(SIGTERM) == 0)
        #expect(answer.code == 502)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("--upstream-ca"), "\(String(decoding: answer.body, as: UTF8.self))")
        let entries = try CassetteFile.read(refused).interactions
        if case let .failure(failure) = entries.first?.outcome {
            #expect(failure.code == URLError.serverCertificateUntrusted.rawValue, "\(failure)")
        } else {
            Issue.record("expected a failure entry, got \(String(describing: entries.first?.outcome))")
        }
    }

    @Test("--upstream-ca must name a readable PEM file of certificates (else bad input, 2), for an https upstream (else a usage error, 64), before anything listens")
    func badTrustFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let notPEM = directory.file("key.txt")
        try Data("not a certificate\n".utf8).write(to: notPEM)
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["--upstream", "https://127.0.0.1:9", "--upstream-ca", notPEM.path], 2, "no certificate"),
            (["--upstream", "https://127.0.0.1:9", "--upstream-ca", directory.file("missing.pem").path], 2, "missing.pem: there is no such file"),
            (["--upstream", "https://127.0.0.1:9", "--upstream-ca", directory.url.path], 2, "it is a directory"),
            (["--upstream", "https://127.0.0.1:9", "--upstream-ca", tls.appendingPathComponent("server-key.pem").path], 2, "no certificate"),
            (["--upstream", "https://127.0.0.1:9", "--upstream-ca", "/dev/zero"], 2, "larger than 4 MiB"),
            (["--upstream", "http://127.0.0.1:9", "--upstream-ca", tls.appendingPathComponent("ca.pem").path], 64, "for an https upstream"),
        ]
        for (arguments, status, says) in cases {
            let run = try runTapedeck(["record", "--cassette", directory.file("never.har.gz").path] + arguments)
            #expect(run.status == status && run.errors.contains(says), "\(arguments): \(run.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("never.har.gz").path))
        #expect(try UpstreamClient.certificates(inPEM: Data(contentsOf: tls.appendingPathComponent("ca.pem"))) == 1)
    }
}
