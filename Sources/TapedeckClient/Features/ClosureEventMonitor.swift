public import TapedeckScheduling

/// Hands events to closures: one for every event, as ``ClientEvent`` values, and/or, as in
/// Alamofire, one per event (`ClosureEventMonitor+Events.swift` lists the properties, named after
/// the ``ClientEvent`` cases).
///
/// ```swift
/// let monitor = ClosureEventMonitor()
/// monitor.requestDidFinish = { request in print("finished", request) }
/// monitor.requestDidCompleteTaskWithError = { request, _, error in if let error { print(request, error) } }
///
/// let names = Mutex<[String]>([])   // Synchronization
/// let recorder = ClosureEventMonitor { event in names.withLock { $0.append(event.name) } }
/// let session = Session(provider: harness, scheduler: scheduler, eventMonitors: [monitor, recorder])
/// ```
///
/// The per-event closures are kept in one table keyed by the event's case name; each property is
/// a typed view of one entry, so the list of events stays written once, in ``ClientEvent``.
open class ClosureEventMonitor: EventMonitor, @unchecked Sendable {
    // @unchecked Sendable: `queue` and `handler` are immutable; the per-event closures are in
    // `closures`, a lock.

    /// Where the closures run (nil: the session's rootQueue).
    public let queue: (any SchedulerQueue)?
    private let handler: (@Sendable (ClientEvent) -> Void)?
    private let closures = Protected<[String: EventClosure]>([:])

    /// A per-event closure, with its arguments erased (the payload of its ``ClientEvent`` case).
    private struct EventClosure {
        let closure: any Sendable
        let call: @Sendable (Any) -> Void
    }

    /// A monitor calling `handler` with every event (if given) and the per-event closures set
    /// later, on `queue`.
    @preconcurrency
    public init(queue: (any SchedulerQueue)? = nil, _ handler: (@Sendable (ClientEvent) -> Void)? = nil) {
        self.queue = queue
        self.handler = handler
    }

    /// Calls the closure for every event, then the event's own closure, if set.
    open func handle(_ event: ClientEvent) {
        handler?(event)
        guard !closures.read(\.isEmpty) else { return }
        // The case's name and payload (a value, or a tuple of the case's values).
        guard let (name, payload) = Mirror(reflecting: event).children.first.flatMap({ child in child.label.map { ($0, child.value) } }),
              let entry = closures.read({ $0[name] }) else { return }
        entry.call(payload)
    }

    /// A closure over a pack of arguments, in a struct (the runtime cannot cast such function
    /// values to and from `Any` directly).
    private struct TypedClosure<each Argument>: Sendable {
        let body: @Sendable (repeat each Argument) -> Void
    }

    /// The closure stored for the event named like the calling property (`#function`).
    func closure<each Argument>(named name: String = #function) -> (@Sendable (repeat each Argument) -> Void)? {
        (closures.read { $0[name] }?.closure as? TypedClosure<repeat each Argument>)?.body
    }

    /// Stores `closure` for the event named like the calling property (`#function`); nil removes it.
    func setClosure<each Argument>(_ closure: (@Sendable (repeat each Argument) -> Void)?, named name: String = #function) {
        guard let closure else {
            closures.write { $0[name] = nil }
            return
        }
        let entry = EventClosure(closure: TypedClosure(body: closure)) { payload in
            guard let arguments = payload as? (repeat each Argument) else {
                assertionFailure("tapedeck: the closure for \(name) does not take the event's values")
                return
            }
            closure(repeat each arguments)
        }
        closures.write { $0[name] = entry }
    }
}
