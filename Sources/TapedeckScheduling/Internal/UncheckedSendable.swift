/// Carries a value that is not `Sendable` (a URLSession, its tasks and delegates, a completion
/// handler) into a job that is the only place it is used.
///
/// Use it only where the value is handed over, not shared: whoever sends it stops touching it, and
/// the job that receives it uses it one call at a time, as URLSession would on its delegate queue.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    // @unchecked Sendable: by the rule above, the value is used by one party at a time.
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }
}
