import Synchronization
import TapedeckScheduling

/// A stand-in for a Session's request flow, built only from scheduler queues, used by `tapedeck demo queues`.
struct QueueTreeDemo {
    let requestsPerSession: Int

    final class Outcome: Sendable {
        private let storage = Mutex<[String]>([])
        func append(_ line: String) { storage.withLock { $0.append(line) } }
        var lines: [String] { storage.withLock { $0 } }
    }

    struct Session {
        let name: String
        let root: any SchedulerQueue
        let request: any SchedulerQueue
        let serialization: any SchedulerQueue
    }

    func start(on scheduler: any Scheduler) -> Outcome {
        let outcome = Outcome()
        for name in ["org.tapedeck.demo.a", "org.tapedeck.demo.b"] {
            let root = scheduler.makeQueue(label: "\(name).rootQueue", target: nil)
            let session = Session(
                name: name, root: root,
                request: scheduler.makeQueue(label: "\(name).requestQueue", target: root),
                serialization: scheduler.makeQueue(label: "\(name).serializationQueue", target: root))
            for index in 0..<requestsPerSession {
                perform(request: index, attempt: 0, on: session, scheduler: scheduler, outcome: outcome)
            }
        }
        return outcome
    }

    private func perform(request index: Int, attempt: Int, on session: Session, scheduler: any Scheduler, outcome: Outcome) {
        session.root.async(named: "perform") {
            session.root.preconditionCurrent()
            session.request.async(named: "setup") {
                session.request.preconditionCurrent()
                scheduler.record("didCreateURLRequest", "GET /items/\(index) attempt \(attempt)")
                session.root.async(named: "createTask") {
                    // The "server" answers after a latency that differs per request (ties across sessions).
                    let latency = Duration.milliseconds(50 * (index % 3 + 1))
                    session.root.asyncAfter(delay: latency, named: "didComplete") {
                        session.root.preconditionCurrent()
                        let status = attempt == 0 && index % 2 == 0 ? 503 : 200
                        scheduler.record("didCompleteTask", "GET /items/\(index) → \(status)")
                        if status == 503 {
                            // RetryPolicy-style backoff: a minute of virtual time, no wall time.
                            session.root.asyncAfter(delay: .seconds(60), named: "retry") {
                                perform(request: index, attempt: attempt + 1, on: session, scheduler: scheduler, outcome: outcome)
                            }
                            return
                        }
                        session.serialization.async(named: "serialize") {
                            session.serialization.preconditionCurrent()
                            session.root.preconditionCurrent()
                            session.request.preconditionNotCurrent()
                            let finished = session.root.now
                            session.root.async(named: "completion") {
                                outcome.append("\(session.name) GET /items/\(index): 200 after \(attempt) retr\(attempt == 1 ? "y" : "ies") at t=\(finished)")
                            }
                        }
                    }
                }
            }
        }
    }
}
