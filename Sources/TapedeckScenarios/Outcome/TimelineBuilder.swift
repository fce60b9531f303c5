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
    /// When each request's backoffs began (its client put a retry off by a delay), by name: a wait
    /// between attempts with none is a refresh wait.
    var backoffs: [String: [Int64]] = [:]

    func build() -> Timeline {
        // Indexed once, so that each lane finds its records, faults and cancel without a scan.
        let recordsByTag = Dictionary(grouping: records.filter { $0.tag != nil }, by: { $0.tag! })
        let faultsByRequest = Dictionary(grouping: faults.filter { $0.request != nil }, by: { $0.request! })
        var cancelByName: [String: VirtualInstant?] = [:]
        for cancel in cancels where cancelByName[cancel.name] == nil { cancelByName[cancel.name] = cancel.at }
        let failed = Set(failures.compactMap(\.request))
        var lanes = requests.map { request in
            lane(request, records: recordsByTag[request.name] ?? [], faults: faultsByRequest[request.name] ?? [],
                 cancelled: cancelByName[request.name] ?? nil, passed: !failed.contains(request.name))
        }
        // Tagged `token` by the client's authenticator — unless a script request is named so (no
        // client.auth: loading refuses the name with one). Refreshes are separate exchanges, not
        // attempts of one request: no wait is drawn between them.
        let refreshes = requests.contains { $0.name == "token" } ? [] : records.filter { $0.tag == "token" }
        if !refreshes.isEmpty {
            // Faults on the refreshes (a slow or failing token endpoint) are marked on their lane.
            let marks = (faultsByRequest["token"] ?? []).map {
                Timeline.Mark(kind: .fault, timeNanoseconds: $0.timeNanoseconds, label: "\($0.site): \($0.what)")
            }
            lanes.append(Timeline.Lane(name: "token refresh", result: "\(refreshes.count)×", passed: true, isRequest: false,
                                       spans: spans(of: refreshes).filter { $0.kind == .attempt }, marks: marks))
        }
        let expiries = faults.filter { $0.request == nil && $0.exchange == 0 }
        if !expiries.isEmpty {
            lanes.append(Timeline.Lane(name: "token server", result: "", passed: true, isRequest: false, spans: [],
                                       marks: expiries.map { Timeline.Mark(kind: .fault, timeNanoseconds: $0.timeNanoseconds, label: "\($0.site): \($0.what)") }))
        }
        return Timeline(durationNanoseconds: max(duration, 0), lanes: lanes)
    }

    private func lane(_ request: RequestOutcome, records: [ExchangeRecord], faults: [FiredFaultRecord], cancelled: VirtualInstant?,
                      passed: Bool) -> Timeline.Lane {
        let own = records.sorted { $0.id < $1.id }
        var marks = faults.map {
            Timeline.Mark(kind: .fault, timeNanoseconds: $0.timeNanoseconds, label: "\($0.site): \($0.what)")
        }
        if let cancelled {
            marks.append(Timeline.Mark(kind: .cancel, timeNanoseconds: cancelled.nanoseconds, label: "cancel"))
        }
        let result = request.result
        if let end = request.endNanoseconds {
            marks.append(Timeline.Mark(kind: .finish, timeNanoseconds: end, label: result))
        }
        // The client's verdict, not the status's: an attempt it retried failed, and the last one
        // failed when the request ended in an error (a 404 the request validates as fine did not,
        // a 200 whose content type failed validation did).
        var spans = spans(of: own, endingAt: cancelled == nil ? nil : request.endNanoseconds, backoffs: backoffs[request.name] ?? [])
        if let last = spans.lastIndex(where: { $0.kind == .attempt }) {
            for index in spans.indices where spans[index].kind == .attempt {
                spans[index].failed = index < last || request.error != .none
            }
        }
        return Timeline.Lane(name: request.name, result: result, passed: passed, spans: spans, marks: marks.sorted { $0.timeNanoseconds < $1.timeNanoseconds })
    }

    /// Attempts and the waits between them; with `requestEnd` (a cancelled request's end), the
    /// wait after the last attempt it was cancelled in. A wait is a backoff when one of
    /// `backoffs` began in it, else a refresh wait.
    private func spans(of records: [ExchangeRecord], endingAt requestEnd: Int64? = nil, backoffs: [Int64] = []) -> [Timeline.Span] {
        var spans: [Timeline.Span] = []
        var previousEnd: Int64?
        func wait(from start: Int64, to end: Int64) -> Timeline.Span {
            let kind: Timeline.Span.Kind = backoffs.contains { $0 >= start && $0 <= end } ? .backoff : .refreshWait
            return Timeline.Span(kind: kind, startNanoseconds: start, endNanoseconds: end, label: "", failed: false)
        }
        for record in records {
            let start = record.metrics.taskStart.nanoseconds
            let end = max(record.metrics.taskEnd.nanoseconds, start)
            if let previousEnd, start > previousEnd {
                spans.append(wait(from: previousEnd, to: start))
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
        if let requestEnd, let previousEnd, requestEnd > previousEnd {
            spans.append(wait(from: previousEnd, to: requestEnd))
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
        case -1007: return "redirects"
        case -1200: return "tls"
        case -999: return "cancelled"
        case -1: return "error"
        default: return "URLError \(code)"
        }
    }
}
