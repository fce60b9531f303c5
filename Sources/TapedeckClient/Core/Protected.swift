import Foundation

/// A value guarded by a lock, for state that several threads touch (as Alamofire's `Protected`).
final class Protected<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only reached through `read`/`write`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func read<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(value)
    }

    @discardableResult
    func write<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
