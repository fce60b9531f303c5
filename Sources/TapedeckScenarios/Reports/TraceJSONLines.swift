import Foundation
public import TapedeckScheduling

/// A trace as JSON lines (`tapedeck run --trace FILE.jsonl`): one object per step with its index,
/// virtual time in nanoseconds, queue, job number, event and payload.
public enum TraceJSONLines {
    /// Every step, one line each.
    public static func render(_ steps: [TraceStep]) -> String {
        steps.map { step in
            let time = Int64(VirtualInstant.zero.duration(to: step.time).wholeNanoseconds)
            return #"{"index":\#(step.index),"t":\#(time),"queue":\#(JSONValue.quoted(step.queue)),"job":\#(step.job),"event":\#(JSONValue.quoted(step.event)),"payload":\#(JSONValue.quoted(step.payload))}"#
        }.joined(separator: "\n") + (steps.isEmpty ? "" : "\n")
    }

    /// Reads back what ``render(_:)`` wrote (blank lines skipped).
    public static func parse(_ text: String) throws -> [TraceStep] {
        struct Line: Decodable {
            let index: Int
            let t: Int64
            let queue: String
            let job: UInt64
            let event: String
            let payload: String
        }
        let decoder = JSONDecoder()
        return try text.split(separator: "\n").map { line in
            let step = try decoder.decode(Line.self, from: Data(line.utf8))
            return TraceStep(index: step.index, time: VirtualInstant.zero.advanced(by: .nanoseconds(step.t)), queue: step.queue,
                             job: step.job, event: step.event, payload: step.payload)
        }
    }
}
