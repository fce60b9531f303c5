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
}
