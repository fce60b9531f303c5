public import Logging
public import TapedeckScheduling

/// Logs every event through swift-log: `[<request>] <event>(<detail>)`.
///
/// ```swift
/// let session = Session(provider: harness, scheduler: scheduler,
///                       eventMonitors: [LoggingEventMonitor(logger: Logger(label: "api"))])
/// ```
public struct LoggingEventMonitor: EventMonitor {
    /// Where events are logged from (nil: the session's rootQueue).
    public let queue: (any SchedulerQueue)?
    private let logger: Logger
    private let level: Logger.Level

    /// A monitor logging every event to `logger` at `level`.
    public init(logger: Logger, level: Logger.Level = .debug, queue: (any SchedulerQueue)? = nil) {
        self.logger = logger
        self.level = level
        self.queue = queue
    }

    /// Logs the event.
    public func handle(_ event: ClientEvent) {
        let subject = event.request.map { "[\($0.description)] " } ?? ""
        logger.log(level: level, "\(subject)\(event)")
    }
}
