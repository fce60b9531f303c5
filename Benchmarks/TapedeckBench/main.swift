// tapedeck-bench: the project's benchmarks. Run through `tools/bench [NAME ...]`.
import Foundation
import TapedeckLoopback
// Each measured configuration prints one `bench NAME key=value ...` line; a missed goal is a
// measurement, not a failure, so the exit status is 0 unless the arguments are wrong (64) or a
// benchmark could not run (1).

let benchmarks: [(name: String, run: () throws -> Void)] = [
    ("scheduler", runSchedulerBenchmark),
    ("bridge", runBridgeBenchmark),
    ("pipeline", runPipelineBenchmark),
    ("cassette", runCassetteBenchmark),
    ("scenarios", runScenarioBenchmark),
]

// Hidden child mode of the cassette benchmark (peak memory of a load, measured alone).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "_cassette-load" {
    try runCassetteLoadChild(CommandLine.arguments[2])
    exit(0)
}

// Hidden child mode of tools/bench-proxy: the Hummingbird loopback server as the upstream and the
// "hello" baseline; prints its port, then serves until killed.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "_hello-server" {
    let server = try LoopbackServer.startBlocking()
    FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(server.port)\n".utf8))
    while true { sleep(3_600) }
}

let requested = Array(CommandLine.arguments.dropFirst())
let unknown = requested.filter { name in !benchmarks.contains { $0.name == name } }
if !unknown.isEmpty {
    let known = benchmarks.map(\.name).joined(separator: ", ")
    print("tapedeck-bench: unknown benchmark(s) \(unknown.joined(separator: ", ")); known: \(known)")
    exit(64)
}
// A benchmark that cannot run (a fixture that does not load, a server that does not start) says
// so on standard error and the others still run; the exit status is then 1.
var failed: [String] = []
for benchmark in benchmarks where requested.isEmpty || requested.contains(benchmark.name) {
    do {
        try benchmark.run()
    } catch {
        FileHandle.standardError.write(Data("tapedeck-bench \(benchmark.name): could not run: \(error)\n".utf8))
        failed.append(benchmark.name)
    }
}
if !failed.isEmpty { exit(1) }
