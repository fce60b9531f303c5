import Synchronization

/// The live exchanges `tapedeck record` is passing on, so that stopping can cut off those still
/// under way when its wait for them ends: each is named, its upstream exchange cancelled (the
/// recorder then keeps nothing of it) and its client's connection reset.
///
/// The bookkeeping is a value (``Book``) with one transition per event, kept in a lock; the
/// cancels and resets it hands back run outside the lock.
///
/// ```swift
/// guard let id = exchanges.begin({ "GET /big" }, stream: stream) else { return answer(stopping) }
/// let cancel = reporting(progress) { final in exchanges.ended(id, delivered: true); … }
/// exchanges.started(id, cancel: cancel)
/// // … on SIGTERM, after the drain:
/// let cut = exchanges.cutOff()            // ["GET /big"]: cancelled, their clients reset
/// ```
final class LiveExchanges: Sendable {
    /// What an exchange is called (method and redacted target), made only when it is shown: most
    /// exchanges never are.
    typealias Name = @Sendable () -> String

    /// One exchange under way: what it is called, how to stop it, the answer it feeds.
    struct Entry: Sendable {
        var shown: Name
        var cancel: (@Sendable () -> Void)?
        var stream: AnswerStream
    }

    /// Who is under way, and whether the recorder is stopping.
    struct Book {
        private(set) var stopping = false
        private var next = 0
        private var running: [Int: Entry] = [:]
        /// Exchanges cut off whose final reply has not come (if it comes, the recorder kept them).
        private var cut: [Int: Name] = [:]

        /// A new exchange, or nil once stopping (it must not start).
        mutating func begin(_ shown: @escaping Name, stream: AnswerStream) -> Int? {
            guard !stopping else { return nil }
            next += 1
            running[next] = Entry(shown: shown, cancel: nil, stream: stream)
            return next
        }

        /// The exchange's cancel is known; returns it when the exchange was cut off meanwhile
        /// (the caller runs it).
        mutating func started(_ id: Int, cancel: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
            if running[id] != nil {
                running[id]?.cancel = cancel
                return nil
            }
            return cut[id] != nil ? cancel : nil
        }

        /// The exchange ended: `delivered`, its final reply came (a cut-off one was kept after
        /// all: it had completed before the cut reached it); else its client went away. Returns
        /// whether it was still running (not cut off by a stop).
        @discardableResult
        mutating func ended(_ id: Int, delivered: Bool) -> Bool {
            let wasRunning = running.removeValue(forKey: id) != nil
            if delivered { cut[id] = nil }
            return wasRunning
        }

        /// Stopping: no exchange starts from now on; those running are handed back to be cut off.
        mutating func cutOff() -> [(id: Int, entry: Entry)] {
            stopping = true
            let taken = running.sorted { $0.key < $1.key }.map { (id: $0.key, entry: $0.value) }
            for (id, entry) in taken { cut[id] = entry.shown }
            running = [:]
            return taken
        }

        /// The exchanges cut off that never got a final reply (so nothing of them was recorded).
        var notRecorded: [String] {
            cut.sorted { $0.key < $1.key }.map { $0.value() }
        }
    }

    private let book = Mutex(Book())

    /// Registers an exchange named `shown` (method and redacted target) answered through
    /// `stream`; nil once ``cutOff()`` ran: the caller answers without starting it.
    func begin(_ shown: @escaping Name, stream: AnswerStream) -> Int? {
        book.withLock { $0.begin(shown, stream: stream) }
    }

    /// Gives the exchange's cancel; an exchange cut off before this is cancelled now.
    func started(_ id: Int, cancel: @escaping @Sendable () -> Void) {
        book.withLock { $0.started(id, cancel: cancel) }?()
    }

    /// The exchange is over: `delivered`, its final reply came; else its client went away.
    /// Returns whether it was still running (not cut off by a stop).
    @discardableResult
    func ended(_ id: Int, delivered: Bool) -> Bool {
        book.withLock { $0.ended(id, delivered: delivered) }
    }

    /// Stops every exchange still under way — cancels its upstream exchange (the recorder keeps
    /// nothing of a cancelled one) and resets its client's connection — and lets none start
    /// after. Returns their names, in the order they began.
    @discardableResult
    func cutOff() -> [String] {
        let taken = book.withLock { $0.cutOff() }
        for (_, entry) in taken {
            entry.cancel?()
            entry.stream.abort()
        }
        return taken.map { $0.entry.shown() }
    }

    /// The exchanges cut off whose final reply never came: not recorded.
    var notRecorded: [String] {
        book.withLock { $0.notRecorded }
    }

    /// Whether ``cutOff()`` ran.
    var isStopping: Bool {
        book.withLock { $0.stopping }
    }
}
