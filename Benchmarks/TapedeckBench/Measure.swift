import Foundation

// Benchmarks measure real time on purpose: that is what they are for.

/// Seconds of monotonic time taken by `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Runs `body` `repetitions` times and returns the median duration in seconds.
func medianSeconds(repetitions: Int, _ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<repetitions {
        samples.append(try seconds(body))
    }
    samples.sort()
    return samples.isEmpty ? .nan : samples[samples.count / 2]
}

/// Prints one benchmark line: `bench NAME key=value ...`.
func report(_ name: String, _ fields: KeyValuePairs<String, String>) {
    let rendered = fields.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    FileHandle.standardOutput.write(Data("bench \(name) \(rendered)\n".utf8))
}

func fixed(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

func rate(_ count: Int, _ seconds: Double) -> String {
    seconds.isNaN ? "n/a" : String(Int((Double(count) / seconds).rounded()))
}
