import TapedeckNetwork
import TapedeckScheduling

/// Draws a run's lanes: one per script request, its attempts from the network's records (tagged
/// with the request's name), the waits between them, the faults that hit it, its cancel and its
/// end; and one lane for token refreshes when there were any.
struct TimelineBuilder {
    let requests: [RequestOutcome]
    let records: [ExchangeRecord]
    let faults: [FiredFaultRecord]
    let failures: [Failure]
    let cancels: [(name: String, at: VirtualInstant?)]
    let duration: Int64

    func build() -> Timeline {
        var lanes = requests.map(lane)
        let refreshes = records.filter { $0.tag == "token" }
        if !refreshes.isEmpty {
            lanes.append(Timeline.Lane(name: "token refresh", result: "\(refreshes.count)×", passed: true, isRequest: false,
                                       spans: spans(of: refreshes), marks: []))
        }
        let expiries = faults.filter { $0.request == nil && $0.exchange == 0 }
        if !expiries.isEmpty {
            lanes.append(Timeline.Lane(name: "token server", result: "", passed: true, isRequest: false, spans: [],
                                       marks: expiries.map { Timeline.Mark(kind: .fault, timeNanoseconds: $0.timeNanoseconds, label: "\($0.site): \($0.what)") }))
        }
        return Timeline(durationNanoseconds: max(duration, 1), lanes: lanes)
    }

    private func lane(_ request: RequestOutcome) -> Timeline.Lane {
        let own = records.filter { $0.tag == request.name }.sorted { $0.id < $1.id }
        var marks = faults.filter { $0.request == request.name }.map {
            Timeline.Mark(kind: .fault, timeNanoseconds: $0.timeNanoseconds, label: "\($0.site): \($0.what)")
        }
        if let cancelled = cancels.first(where: { $0.name == request.name })?.at {
            marks.append(Timeline.Mark(kind: .cancel, timeNanoseconds: cancelled.nanoseconds, label: "cancel"))
        }
        let result = request.result
        if let end = request.endNanoseconds {
            marks.append(Timeline.Mark(kind: .finish, timeNanoseconds: end, label: result))
        }
        let passed = !failures.contains { $0.request == request.name }
        return Timeline.Lane(name: request.name, result: result, passed: passed, spans: spans(of: own), marks: marks.sorted { $0.timeNanoseconds < $1.timeNanoseconds })
    }

    /// Attempts and the waits between them.
    private func spans(of records: [ExchangeRecord]) -> [Timeline.Span] {
        var spans: [Timeline.Span] = []
        var previousEnd: Int64?
        for record in records {
            let start = record.metrics.taskStart.nanoseconds
            let end = max(record.metrics.taskEnd.nanoseconds, start)
            if let previousEnd, start > previousEnd {
                spans.append(Timeline.Span(kind: .backoff, startNanoseconds: previousEnd, endNanoseconds: start, label: "", failed: false))
            }
            let (label, failed): (String, Bool)
            switch record.outcome {
            case let .response(status): (label, failed) = ("\(status)", status >= 400)
            case let .failure(failure): (label, failed) = (Self.shortName(failure.urlErrorCode.rawValue), true)
            case .cancelled: (label, failed) = ("cancelled", true)
            }
            spans.append(Timeline.Span(kind: .attempt, startNanoseconds: start, endNanoseconds: end, label: label, failed: failed))
            previousEnd = end
        }
        return spans
    }

    static func shortName(_ code: Int) -> String {
        switch code {
        case -1001: return "timedOut"
        case -1004: return "refused"
        case -1003: return "noHost"
        case -1005: return "lost"
        case -1009: return "offline"
        case -999: return "cancelled"
        case -1: return "error"
        default: return "URLError \(code)"
        }
    }
}
