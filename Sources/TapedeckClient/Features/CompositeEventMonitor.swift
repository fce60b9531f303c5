public import TapedeckScheduling

/// Sends every event to each of its monitors in order, each as a job on the monitor's queue
/// (the session's rootQueue for monitors without one). A Session owns one; a request that has
/// monitors of its own gets one listing the session's monitors, then its own.
public final class CompositeEventMonitor: EventMonitor, @unchecked Sendable {
    // @unchecked Sendable: immutable after init (monitors are Sendable; a queue is Sendable).

    /// The monitors, in the order they receive each event.
    public let monitors: [any EventMonitor]
    let defaultQueue: any SchedulerQueue

    init(monitors: [any EventMonitor], defaultQueue: any SchedulerQueue) {
        self.monitors = monitors
        self.defaultQueue = defaultQueue
    }

    /// The session's rootQueue.
    public var queue: (any SchedulerQueue)? { defaultQueue }

    /// Enqueues the event's delivery to every monitor.
    public func handle(_ event: ClientEvent) {
        for monitor in monitors {
            (monitor.queue ?? defaultQueue).async(named: "event") {
                event.deliver(to: monitor)
            }
        }
    }
}
