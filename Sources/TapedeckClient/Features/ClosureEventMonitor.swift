public import TapedeckScheduling

/// Hands every event, as a ``ClientEvent``, to one closure.
///
/// ```swift
/// let names = Mutex<[String]>([])   // Synchronization
/// let monitor = ClosureEventMonitor { event in names.withLock { $0.append(event.name) } }
/// let session = Session(provider: harness, scheduler: scheduler, eventMonitors: [monitor])
/// ```
public struct ClosureEventMonitor: EventMonitor {
    /// Where the closure runs (nil: the session's rootQueue).
    public let queue: (any SchedulerQueue)?
    let handler: @Sendable (ClientEvent) -> Void

    /// A monitor calling `handler` with every event, on `queue`.
    public init(queue: (any SchedulerQueue)? = nil, _ handler: @escaping @Sendable (ClientEvent) -> Void) {
        self.queue = queue
        self.handler = handler
    }

    /// Calls the closure.
    public func handle(_ event: ClientEvent) {
        handler(event)
    }
}
