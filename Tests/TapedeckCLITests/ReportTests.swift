import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TapedeckScenarios
import TapedeckTestSupport

/// The SVG timeline and the HTML report: what `tapedeck run --timeline/--report` writes (as a
/// process, for a fixture that passes and one whose checks fail) and what the renderers make of
/// names that are not markup-safe.
@Suite("Reports: the SVG timeline and the HTML page")
struct ReportTests {
    private let retryStorm = fixturesDirectory.appendingPathComponent("scenarios/retry-storm.yaml")

    /// Runs `file` with `--format json --timeline --report`; the outcome, the parsed SVG and the page.
    private func run(_ file: URL, seed: Int, in directory: TemporaryDirectory, status: Int32) throws -> (Outcome, XMLDocument, String) {
        let svg = directory.file("t.svg"), html = directory.file("r.html")
        let run = try runTapedeck(["run", file.path, "--seed", "\(seed)", "--format", "json", "--timeline", svg.path, "--report", html.path])
        #expect(run.status == status, "\(run.errors)")
        let outcome = try JSONDecoder().decode(Outcome.self, from: Data(run.output.utf8))
        let document = try XMLDocument(contentsOf: svg, options: [])
        return (outcome, document, try String(contentsOf: html, encoding: .utf8))
    }

    /// The request lanes of an SVG document: (name, class, data-passed) in document order (read
    /// through XPath, which resolves attributes the same way on every platform).
    private func lanes(_ document: XMLDocument) throws -> [(name: String, classes: String, passed: String)] {
        func values(_ attribute: String) throws -> [String] {
            try document.nodes(forXPath: "//*[@data-lane]/@\(attribute)").map { $0.stringValue ?? "" }
        }
        let names = try values("data-lane"), classes = try values("class"), passed = try values("data-passed")
        try #require(names.count == classes.count && names.count == passed.count, "every lane has a class and data-passed")
        return names.indices.map { (names[$0], classes[$0], passed[$0]) }
    }

    /// The `class="…"` elements of a kind inside the request lanes.
    private func count(_ kind: String, in document: XMLDocument) throws -> Int {
        try document.nodes(forXPath: "//*[@data-lane]//*[contains(concat(' ', @class, ' '), ' \(kind) ')]").count
    }

    @Test("the standalone SVG is well-formed XML with one lane per request (named and ordered as the outcome's), every attempt, backoff, fault and end drawn, an axis with round labels in one unit, and a legend")
    func svgFromTheCLI() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (outcome, document, _) = try run(retryStorm, seed: 1, in: directory, status: 0)
        let root = try #require(document.rootElement())
        #expect(root.name == "svg" && root.uri == "http://www.w3.org/2000/svg")
        let size = try ["width", "height"].map { try document.nodes(forXPath: "/*/@\($0)").first?.stringValue.flatMap { Int($0) } ?? 0 }
        #expect(size.allSatisfy { $0 > 0 }, "\(size)")
        #expect(try lanes(document).map(\.name) == outcome.requests.map(\.name), "one lane per request, in script order")
        #expect(try lanes(document).allSatisfy { $0.classes == "lane" && $0.passed == "true" }, "nothing failed")
        #expect(try count("attempt", in: document) == outcome.requests.map(\.attempts).reduce(0, +), "a bar per attempt")
        #expect(try count("backoff", in: document) == outcome.requests.map { $0.attempts - 1 }.reduce(0, +), "a wait between attempts")
        #expect(try count("fault", in: document) == outcome.faults.filter { $0.request != nil }.count)
        #expect(try count("end", in: document) == outcome.requests.filter { $0.endNanoseconds != nil }.count)
        #expect(try document.nodes(forXPath: "//*[@data-lane]//*[local-name()='title']").count >= outcome.requests.count * 3, "hover titles")
        let ticks = try document.nodes(forXPath: "//*[@class='tick']").compactMap(\.stringValue)
        #expect(ticks.first == "0" && (3...14).contains(ticks.count), "\(ticks)")
        let unit = try #require(ticks.last?.drop { $0.isNumber || $0 == "." })
        #expect(!unit.isEmpty && ticks.dropFirst().allSatisfy { $0.hasSuffix(unit) && Double($0.dropLast(unit.count)) != nil }, "one unit: \(ticks)")
        #expect(try document.nodes(forXPath: "//*[@class='legend']//*[local-name()='text']").count >= 8)
    }

    @Test("a request whose check failed has its lane marked failed (class, data-passed, ✗) and its table row too; the page lists the check and the reproduction line")
    func failedLanes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let text = try String(contentsOf: retryStorm, encoding: .utf8)
            .replacingOccurrences(of: "../cassettes/", with: fixturesDirectory.appendingPathComponent("cassettes").path + "/")
            .replacingOccurrences(of: "finishedBy: 4.5s", with: "finishedBy: 3s")
        let file = directory.file("retry-storm.yaml")
        try Data(text.utf8).write(to: file)
        let (outcome, document, page) = try run(file, seed: 5, in: directory, status: 1)
        let failing = Set(outcome.failures.compactMap(\.request))
        #expect(!failing.isEmpty && failing.count < outcome.requests.count, "some lanes fail, not all: \(failing)")
        for lane in try lanes(document) {
            let failed = failing.contains(lane.name)
            #expect(lane.classes == (failed ? "lane failed" : "lane") && lane.passed == (failed ? "false" : "true"), "\(lane)")
        }
        #expect(try document.nodes(forXPath: "//*[@data-lane]//*[@class='failed-check']").count == failing.count)
        for name in failing {
            #expect(page.contains(#"<tr class="request failed" data-request="\#(name)">"#), "\(name)'s row")
        }
        #expect(page.contains(#"<ul class="failures">"#) && page.contains("finishedBy"))
        #expect(page.contains(#"<code class="repro">"#) && page.contains(Self.escaped(outcome.reproduction)), "the reproduction line")
    }

    @Test("names with < > & \" ' and control characters are escaped: the SVG still parses and keeps the name; the page holds no raw markup from it")
    func escaping() throws {
        let evil = "a<b>&\"c'</g><script>x</script>\u{1}"
        let timeline = Timeline(durationNanoseconds: 2_000_000_000, lanes: [
            .init(name: evil, result: "503 <&>", passed: false, spans: [.init(kind: .attempt, startNanoseconds: 0, endNanoseconds: 1_000_000_000, label: "<5&3>", failed: true)],
                  marks: [.init(kind: .fault, timeNanoseconds: 500_000_000, label: "site \"<x>\"")]),
            .init(name: "plain", result: "200", passed: true),
        ])
        let document = try XMLDocument(xmlString: SVGTimeline(timeline).render(), options: [])
        #expect(try lanes(document).map(\.name) == ["a<b>&\"c'</g><script>x</script>\u{FFFD}", "plain"], "escaped, and the control character replaced")
        #expect(try document.nodes(forXPath: "//*[local-name()='script']").isEmpty)

        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var (outcome, _, _) = try run(retryStorm, seed: 1, in: directory, status: 0)
        outcome.scenario = evil
        outcome.requests[0].name = evil
        outcome.requests[0].url = "https://example.com/?a=<b>&c"
        outcome.timeline.lanes[0].name = evil
        let page = HTMLReport(outcome).render()
        #expect(!page.contains("<script") && !page.contains("a<b>&") && !page.contains("</g><"), "no raw markup from names")
        #expect(page.contains("a&lt;b&gt;&amp;&quot;c&#39;&lt;/g&gt;&lt;script&gt;"))
    }

    @Test("the page is self-contained: inline style and SVG, no script, link, import, url() or src/href to the network")
    func selfContained() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (outcome, _, page) = try run(fixturesDirectory.appendingPathComponent("scenarios/token-refresh.yaml"), seed: 1, in: directory, status: 0)
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.contains("<style>") && page.contains("<svg"))
        for forbidden in ["<script", "<link", "@import", "url(", "<img", "<iframe", "<object", "src=", "href="] {
            #expect(!page.lowercased().contains(forbidden), "\(forbidden)")
        }
        let lanes = page.components(separatedBy: "data-lane=\"").count - 1
        #expect(lanes == outcome.requests.count, "support lanes (token refresh) are not request lanes")
        #expect(page.contains(#"class="support-lane""#), "the token refresh lane is drawn apart")
        #expect(page.components(separatedBy: #"<tr class="request"#).count - 1 == outcome.requests.count)
    }

    /// `text` as the reports escape it.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }
}
