import Foundation
import TapedeckCassettes
import TapedeckHTTP
import TapedeckScheduling

/// Saving and loading one generated cassette (≥ 50 MB of JSON-ish bodies) beside raw zlib on the
/// same bytes; peak memory of a load (in a child process); replay lookup cost at 1k and 100k entries.
func runCassetteBenchmark() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-bench-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("big.har.gz")

    let cassette = generatedCassette(entries: 5_000, bodyBytes: 10_000)
    let json = HARCodec.encode(cassette)
    let megabytes = Double(json.count) / 1_048_576

    let save = try medianSeconds(repetitions: 3) { try CassetteFile.write(cassette, to: url) }
    let compress = try medianSeconds(repetitions: 3) { _ = try Zlib.compress(json, format: .gzip, level: 6) }
    let packed = try Data(contentsOf: url)
    let load = try medianSeconds(repetitions: 3) {
        let loaded = try CassetteFile.read(url)
        _ = CassettePlayer(cassette: loaded)   // builds the lookup index
    }
    let inflate = try medianSeconds(repetitions: 3) { _ = try Zlib.decompress(packed, format: .gzip) }
    let peak = try childPeakMemory(loading: url)
    // Why the codec is hand-written: the JSON step alone, Foundation's coders beside ours.
    let foundationParse = try medianSeconds(repetitions: 3) { _ = try HARCodec.decodeWithFoundation(json, file: "bench") }
    let fastParse = medianSeconds(repetitions: 3) { precondition(HARCodec.decodeFast(json) != nil) }
    let foundationEncode = medianSeconds(repetitions: 3) { _ = HARCodec.encodeWithFoundation(cassette) }
    let fastEncode = medianSeconds(repetitions: 3) { _ = HARCodec.encode(cassette) }

    report("cassette", [
        "entries": String(cassette.interactions.count),
        "json_mb": fixed(megabytes, 1),
        "gz_mb": fixed(Double(packed.count) / 1_048_576, 1),
        "save_mb_s": fixed(megabytes / save, 1),
        "compress_mb_s": fixed(megabytes / compress, 1),
        "save_ratio": fixed(compress / save),
        "load_mb_s": fixed(megabytes / load, 1),
        "inflate_mb_s": fixed(megabytes / inflate, 1),
        "load_ratio": fixed(inflate / load),
        "parse_foundation_mb_s": fixed(megabytes / foundationParse, 1),
        "parse_fast_mb_s": fixed(megabytes / fastParse, 1),
        "encode_foundation_mb_s": fixed(megabytes / foundationEncode, 1),
        "encode_fast_mb_s": fixed(megabytes / fastEncode, 1),
        "load_peak_mb": peak.map { fixed(Double($0) / 1_048_576, 1) } ?? "n/a",
        "peak_vs_json": peak.map { fixed(Double($0) / Double(json.count)) } ?? "n/a",
        "goal": "load_ratio>=0.3,save_ratio>=0.7,peak_vs_json<=3",
    ])

    // Replay lookup: the same number of lookups against 1k and 100k entries.
    var perLookup: [Int: Double] = [:]
    for size in [1_000, 100_000] {
        let player = CassettePlayer(cassette: generatedCassette(entries: size, bodyBytes: 16), afterLast: .alwaysFirst)
        var random = SeededGenerator(seed: 7)
        let lookups = 20_000
        let requests = (0..<lookups).map { _ in
            RequestSnapshot(method: .get, url: URL(string: "http://bench.test/items/\(random.next(below: size))?page=1")!)
        }
        let context = ResponderContext(exchange: 0, transaction: 0, time: .zero)
        let time = medianSeconds(repetitions: 3) {
            for request in requests {
                guard case .response = player.reply(to: request, context: context) else { preconditionFailure("lookup missed") }
            }
        }
        perLookup[size] = time / Double(lookups)
        report("cassette", [
            "lookup_entries": String(size),
            "lookups": String(lookups),
            "ns_per_lookup": String(Int((time / Double(lookups) * 1e9).rounded())),
        ])
    }
    report("cassette", ["lookup_cost_100k_vs_1k": fixed(perLookup[100_000]! / perLookup[1_000]!), "goal": "~1"])
    try runInteropLoads()
}

/// Other tools' HAR files (fixtures/interop): whole loads through the fast reader and through
/// JSONDecoder, and whether the fast reader took the file at all (it must not fall back).
private func runInteropLoads() throws {
    let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("fixtures/interop")
    for name in ["mitmproxy.har", "mitmproxy-failures.har", "playwright-chromium.har", "firefox.har"] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        let megabytes = Double(data.count) / 1_048_576
        let repetitions = 200
        let fast = try medianSeconds(repetitions: 5) {
            for _ in 0..<repetitions { _ = try HARCodec.decode(data, file: name) }
        }
        let foundation = try medianSeconds(repetitions: 5) {
            for _ in 0..<repetitions { _ = try HARCodec.cassette(from: HARCodec.decodeWithFoundation(data, file: name), file: name) }
        }
        report("cassette", [
            "interop": name,
            "kb": fixed(Double(data.count) / 1_024, 1),
            "fast_path": HARCodec.decodeFast(data) == nil ? "declined" : "taken",
            "load_mb_s": fixed(megabytes * Double(repetitions) / fast, 1),
            "foundation_load_mb_s": fixed(megabytes * Double(repetitions) / foundation, 1),
            "speedup": fixed(foundation / fast),
        ])
    }
}

/// `entries` GETs of distinct paths with JSON-ish bodies of about `bodyBytes`, from a fixed seed.
private func generatedCassette(entries: Int, bodyBytes: Int) -> Cassette {
    var random = SeededGenerator(seed: 42)
    let words = ["alpha", "beta", "gamma", "delta", "swift", "tape", "deck", "queue", "retry", "metrics", "cassette", "replay"]
    var interactions: [Interaction] = []
    interactions.reserveCapacity(entries)
    for index in 0..<entries {
        var body = "{\"id\":\(index),\"items\":["
        while body.utf8.count < bodyBytes {
            body += "{\"name\":\"\(words[random.next(below: words.count)])-\(random.next(below: 100_000))\",\"score\":\(random.next(below: 1_000_000)),\"ok\":\(random.chance(1, in: 2))},"
        }
        body += "{}]}"
        interactions.append(Interaction(
            index: index, startedDateTime: "2026-11-21T10:00:00.000Z",
            request: RecordedRequest(method: "GET", url: URL(string: "http://bench.test/items/\(index)?page=1")!,
                                     headers: [HeaderField("Accept", "application/json")]),
            outcome: .response(RecordedResponse(status: 200, statusText: "OK", headers: [HeaderField("Content-Type", "application/json")],
                                                body: Data(body.utf8))),
            timings: ExchangeTimings(send: .microseconds(100), wait: .milliseconds(20), receive: .milliseconds(2))))
    }
    return Cassette(interactions: interactions)
}

/// Loads `url` in a fresh child process (`tapedeck-bench _cassette-load`) and returns its peak
/// resident memory in bytes (Linux: VmHWM), so the figure is the load's alone.
private func childPeakMemory(loading url: URL) throws -> Int? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["_cassette-load", url.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}

/// The child side of ``childPeakMemory(loading:)``: load, then print VmHWM in bytes.
func runCassetteLoadChild(_ path: String) throws {
    let cassette = try CassetteFile.read(URL(fileURLWithPath: path))
    let player = CassettePlayer(cassette: cassette)
    precondition(player.cassette.interactions.count > 0)
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    let kilobytes = line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    print(kilobytes.map { String($0 * 1_024) } ?? "")
}
