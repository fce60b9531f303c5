import Foundation
import Testing
import TapedeckTestSupport

/// `tapedeck explore` and `tapedeck explore merge` as real processes: output, files, progress
/// without a terminal, sharding and merging, worker kinds, and exit statuses.
@Suite("Explore: the tapedeck explore command")
struct ExploreCommandTests {
    private let retryStorm = fixturesDirectory.appendingPathComponent("scenarios/retry-storm.yaml")

    /// retry-storm with its 503 site on for about half the seeds (the others fail `attempts: 3`).
    private func halfFailing(in directory: TemporaryDirectory) throws -> URL {
        let text = try String(contentsOf: retryStorm, encoding: .utf8)
            .replacingOccurrences(of: "../cassettes/", with: fixturesDirectory.appendingPathComponent("cassettes").path + "/")
            .replacingOccurrences(of: "    attempts: 1-2\n", with: "    attempts: 1-2\n    enabled: 500\n")
        let file = directory.file("half-failing.yaml")
        try Data(text.utf8).write(to: file)
        return file
    }

    private func lines(_ file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test("explore runs every seed, writes one v1 JSON line per seed in seed order, prints the summary and exits 0; threads and processes agree")
    func exploresAndWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let threads = directory.file("threads.jsonl"), processes = directory.file("processes.jsonl")
        let run = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..24", "--jobs", "2", "--out", threads.path])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.hasPrefix("retry-storm: 24 seeds (seeds 1..24), 0 failed, 24 distinct trace hashes, 456 attempts (retries included)\n"), "\(run.output)")
        #expect(run.output.contains("  busy: 288 times in 24 of 24 seeds") && run.output.contains("every seed passed"))
        let records = try lines(threads).map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(records.map { $0["seed"] as? Int } == Array(1...24))
        #expect(records.allSatisfy { $0["v"] as? Int == 1 && $0["passed"] as? Bool == true })
        let byProcess = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..24", "--jobs", "2", "--workers", "processes", "--out", processes.path])
        #expect(byProcess.status == 0, "\(byProcess.errors)")
        #expect(try Data(contentsOf: processes) == Data(contentsOf: threads), "worker processes write the same lines")
        #expect(byProcess.output == run.output)
    }

    @Test("three shards merged print the unsharded run's summary and its lines, seed for seed, hash for hash")
    func shardsMergeToTheWholeRun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let scenario = try halfFailing(in: directory)
        let whole = directory.file("whole.jsonl")
        let run = try runTapedeck(["explore", scenario.path, "--seeds", "1..30", "--jobs", "2", "--out", whole.path])
        #expect(run.status == 1, "some seeds fail: \(run.output)")
        var shards: [String] = []
        for index in 0..<3 {
            let shard = directory.file("shard\(index).jsonl")
            let part = try runTapedeck(["explore", scenario.path, "--seeds", "1..30", "--shard", "\(index)/3", "--format", "jsonl", "--out", shard.path])
            #expect([0, 1].contains(part.status))
            #expect(part.output == (try String(contentsOf: shard, encoding: .utf8)), "--format jsonl prints the lines --out writes")
            #expect(try lines(shard).allSatisfy { $0.contains(#""v":1"#) })
            shards.append(shard.path)
        }
        let mergedLines = directory.file("merged.jsonl")
        let merged = try runTapedeck(["explore", "merge"] + shards.reversed() + ["--out", mergedLines.path])
        #expect(merged.status == 1)
        #expect(merged.output == run.output)
        #expect(try Data(contentsOf: mergedLines) == Data(contentsOf: whole))
        #expect(run.output.contains("failing seeds:") && run.output.contains("    reproduce: tapedeck run "))
    }

    @Test("without a terminal, progress is plain lines on standard error with no control characters; --format jsonl keeps standard output to JSON lines")
    func plainProgress() throws {
        let run = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..6", "--jobs", "2", "--format", "jsonl", "--progress-interval", "0"])
        #expect(run.status == 0)
        let progress = run.errors.split(separator: "\n").filter { $0.hasPrefix("explore: ") }
        #expect(progress.count == 7, "a line per seed at interval 0, and a last one: \(run.errors)")
        #expect(progress.last?.hasPrefix("explore: 6/6 seeds (100%), ") == true && progress.last?.contains(", 0 failed, done in ") == true,
                "\(progress)")
        #expect(run.errors.unicodeScalars.allSatisfy { $0 == "\n" || $0.value >= 0x20 }, "no control characters: \(run.errors.debugDescription)")
        #expect(run.errors.contains("retry-storm: 6 seeds"), "the summary goes to standard error with jsonl")
        #expect(run.output.split(separator: "\n").count == 6)
        #expect(run.output.split(separator: "\n").allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
    }

    @Test("a failing seed exits 1; --stop-after K stops after the K-th failing seed and says so")
    func failuresAndStopAfter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let scenario = try halfFailing(in: directory)
        let out = directory.file("stopped.jsonl")
        let run = try runTapedeck(["explore", scenario.path, "--seeds", "1..40", "--stop-after", "2", "--out", out.path])
        #expect(run.status == 1)
        let records = try lines(out)
        #expect(records.filter { $0.contains(#""passed":false"#) }.count == 2)
        #expect(records.last?.contains(#""passed":false"#) == true, "the last line is the second failure")
        #expect(records.count < 40)
        #expect(run.output.contains("stopped after 2 failing seeds (--stop-after)"), "\(run.output)")
    }

    @Test("bad usage exits 64 (range, shard, jobs, stop-after); a bad scenario and bad merge inputs exit 2 with a message")
    func badInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        for arguments in [["--seeds", "9..1"], ["--seeds", "x"], ["--seeds", "1..5", "--shard", "3/3"], ["--seeds", "1..5", "--shard", "1"],
                          ["--seeds", "1..5", "--jobs", "0"], ["--seeds", "1..5", "--stop-after", "0"], []] {
            let run = try runTapedeck(["explore", retryStorm.path] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.errors)")
        }
        let badRange = try runTapedeck(["explore", retryStorm.path, "--seeds", "9..1"])
        #expect(badRange.errors.contains("the seed range 9..1 is empty"), "\(badRange.errors)")
        // A negative number is the flag's value (and out of range), not a missing value.
        for (flag, value) in [("--jobs", "-1"), ("--stop-after", "-1"), ("--seeds", "-1..3")] {
            let run = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..5", flag, value])
            #expect(run.status == 64 && run.errors.contains(flag) && !run.errors.contains("Missing value"), "\(flag) \(value): \(run.errors)")
        }
        #expect(try runTapedeck(["explore", directory.file("missing.yaml").path, "--seeds", "1..3"]).status == 2)

        let a = directory.file("a.jsonl"), b = directory.file("b.jsonl")
        #expect(try runTapedeck(["explore", retryStorm.path, "--seeds", "1..4", "--out", a.path]).status == 0)
        #expect(try runTapedeck(["explore", retryStorm.path, "--seeds", "4..6", "--out", b.path]).status == 0)
        let overlap = try runTapedeck(["explore", "merge", a.path, b.path])
        #expect(overlap.status == 2)
        #expect(overlap.errors.contains("b.jsonl:1: seed 4 is also in \(a.path)"), "\(overlap.errors)")
        let other = directory.file("other.jsonl")
        let token = fixturesDirectory.appendingPathComponent("scenarios/token-refresh.yaml")
        #expect(try runTapedeck(["explore", token.path, "--seeds", "10..11", "--out", other.path]).status == 0)
        let mismatch = try runTapedeck(["explore", "merge", a.path, other.path])
        #expect(mismatch.status == 2 && mismatch.errors.contains("scenario 'token-refresh'"), "\(mismatch.errors)")
        #expect(try runTapedeck(["explore", "merge", directory.file("none.jsonl").path]).status == 2)
        #expect(try runTapedeck(["explore", "merge"]).status == 64)
    }

    @Test("merge refuses an empty input and a file given twice (exit 2); a shard left out is a warning, or with --seeds an error naming the missing seeds")
    func incompleteMerges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var shards: [String] = []
        for index in 0..<3 {
            let shard = directory.file("shard\(index).jsonl")
            #expect(try runTapedeck(["explore", retryStorm.path, "--seeds", "1..9", "--shard", "\(index)/3", "--out", shard.path]).status == 0)
            shards.append(shard.path)
        }
        let empty = directory.file("empty.jsonl")
        try Data().write(to: empty)
        let withEmpty = try runTapedeck(["explore", "merge", shards[0], empty.path])
        #expect(withEmpty.status == 2 && withEmpty.errors.contains("empty.jsonl holds no seed records"), "\(withEmpty.errors)")
        let twice = try runTapedeck(["explore", "merge", shards[0], shards[0]])
        #expect(twice.status == 2 && twice.errors.contains("shard0.jsonl is given twice"), "\(twice.errors)")

        let partial = try runTapedeck(["explore", "merge", shards[0], shards[1]])
        #expect(partial.status == 0)
        #expect(partial.errors.contains("warning: merge: 3 seeds between 1 and 9 are in no input"), "\(partial.errors)")
        let required = try runTapedeck(["explore", "merge", shards[0], shards[1], "--seeds", "1..9"])
        #expect(required.status == 2)
        #expect(required.errors.contains("3 seeds of 1..9 are in no input (first: 2, 5, 8)"), "\(required.errors)")
        let whole = try runTapedeck(["explore", "merge"] + shards + ["--seeds", "1..9"])
        #expect(whole.status == 0 && !whole.errors.contains("warning"), "\(whole.errors)")
    }

    @Test("a shard holding no seed of the range passes, names its scenario, and writes one line saying so, which merge accepts (a matrix of 4 shards over 1..3)")
    func shardWithNoSeeds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given four shards of a three-seed range: shard 0/4 holds none of 1, 2, 3
        var shards: [String] = []
        for index in 0..<4 {
            let shard = directory.file("shard\(index).jsonl")
            let run = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..3", "--shard", "\(index)/4", "--out", shard.path])
            #expect(run.status == 0, "shard \(index): \(run.output)\(run.errors)")
            if index == 0 {
                #expect(run.output.hasPrefix("retry-storm: 0 seeds, 0 failed"), "\(run.output)")
                #expect(run.output.contains("shard 0/4 of 1..3 holds no seed"), "\(run.output)")
            }
            shards.append(shard.path)
        }
        let line = try lines(URL(fileURLWithPath: shards[0]))
        #expect(line.count == 1 && line[0].contains(#""emptyShard":"0/4""#) && line[0].contains(#""seeds":"1..3""#), "\(line)")
        // Merged alone, the empty shard names its scenario as the unsharded run would
        let alone = try runTapedeck(["explore", "merge", shards[0]])
        #expect(alone.status == 0 && alone.output.hasPrefix("retry-storm: 0 seeds"), "\(alone.output)")
        // When they are merged, with and without --seeds
        let merged = try runTapedeck(["explore", "merge"] + shards + ["--seeds", "1..3", "--out", directory.file("all.jsonl").path])
        let plain = try runTapedeck(["explore", "merge"] + shards)
        // Then the merge is the unsharded run: three seeds, no empty-shard line among them
        #expect(merged.status == 0 && plain.status == 0, "\(merged.errors)\(plain.errors)")
        #expect(merged.output.hasPrefix("retry-storm: 3 seeds (seeds 1..3), 0 failed"), "\(merged.output)")
        let whole = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..3", "--out", directory.file("whole.jsonl").path])
        #expect(try Data(contentsOf: directory.file("all.jsonl")) == Data(contentsOf: directory.file("whole.jsonl")))
        #expect(merged.output == whole.output)
        // An empty file is still a shard that did not run
        try Data().write(to: URL(fileURLWithPath: shards[0]))
        #expect(try runTapedeck(["explore", "merge"] + shards).status == 2)
    }

    @Test("one seed (and one trace hash) is counted in the singular: in the summary, and in merge's missing-seed messages")
    func singularSeed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let one = directory.file("one.jsonl"), three = directory.file("three.jsonl")
        let run = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..1", "--out", one.path])
        #expect(run.output.hasPrefix("retry-storm: 1 seed (seeds 1..1), 0 failed, 1 distinct trace hash, 19 attempts (retries included)\n"),
                "\(run.output)")
        #expect(run.output.contains("  busy: 12 times in 1 of 1 seed\n"), "\(run.output)")
        #expect(try runTapedeck(["explore", retryStorm.path, "--seeds", "3..3", "--out", three.path]).status == 0)
        let gap = try runTapedeck(["explore", "merge", one.path, three.path])
        #expect(gap.errors.contains("warning: merge: 1 seed between 1 and 3 is in no input"), "\(gap.errors)")
        let missing = try runTapedeck(["explore", "merge", one.path, three.path, "--seeds", "1..3"])
        #expect(missing.status == 2 && missing.errors.contains("1 seed of 1..3 is in no input (first: 2)"), "\(missing.errors)")
    }

    @Test("bad input found when the first seed runs (a missing cassette) exits 2 and leaves --out as it was: an earlier shard's lines are kept, no file is made")
    func badCassetteWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let scenario = directory.file("missing-cassette.yaml")
        try Data("""
            traffic: {cassette: nowhere.har.gz}
            script: [{request: GET http://api.shop.test/api/items}]
            """.utf8).write(to: scenario)
        let kept = directory.file("shard0.jsonl")
        try Data("{\"v\":1}\n".utf8).write(to: kept)
        for jobs in ["1", "2", "4"] {
            let run = try runTapedeck(["explore", scenario.path, "--seeds", "1..3", "--jobs", jobs, "--out", kept.path])
            #expect(run.status == 2 && run.errors.contains("nowhere.har.gz"), "\(run.errors)")
            // Said once, by the command, not once by each worker process.
            #expect(run.errors.components(separatedBy: "does not exist").count - 1 == 1, "\(run.errors)")
            #expect(try String(contentsOf: kept, encoding: .utf8) == "{\"v\":1}\n", "the earlier lines are kept")
        }
        let fresh = directory.file("fresh.jsonl")
        #expect(try runTapedeck(["explore", scenario.path, "--seeds", "1..3", "--out", fresh.path]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: fresh.path))
        // An --out that cannot be written is still refused before any seed runs
        let refused = try runTapedeck(["explore", retryStorm.path, "--seeds", "1..3", "--out", directory.file("no/such/dir.jsonl").path])
        #expect(refused.status == 3 && refused.errors.contains("cannot write it: the directory"), "\(refused.errors)")
    }
}
