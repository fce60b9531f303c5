/// How an attempt or a request ended, as the reports colour it: a status below 400, an error
/// status, a transport failure (no response: timed out, refused, lost...), a cancel, or nothing
/// yet (never finished, or a lane without a result).
enum Ending: String, CaseIterable {
    case ok
    case errorStatus
    case transport
    case cancelled
    case none

    /// The ending a result or attempt label names: `200`, `503`, `timedOut`, `cancelled`,
    /// `cancelled after 503`, `no answer` (and a support lane's `3×`).
    init(label: String) {
        if let status = Int(label) {
            self = status < 400 ? .ok : .errorStatus
        } else if label.hasPrefix("cancelled") {
            self = .cancelled
        } else if label.isEmpty || label == "no answer" || label.hasSuffix("×") {
            self = .none
        } else {
            self = .transport
        }
    }

    /// The fill of an attempt bar (white text reads on each).
    var color: String {
        switch self {
        case .ok: return "#15803d"
        case .errorStatus: return "#c2410c"
        case .transport: return "#dc2626"
        case .cancelled: return "#6b7280"
        case .none: return "#475569"
        }
    }

    /// The colour of a result written as text on a light background.
    var textColor: String {
        switch self {
        case .ok: return "#166534"
        case .errorStatus: return "#9a3412"
        case .transport: return "#b91c1c"
        case .cancelled: return "#4b5563"
        case .none: return "#334155"
        }
    }

    /// In the legend and in hover titles.
    var name: String {
        switch self {
        case .ok: return "ok"
        case .errorStatus: return "error status"
        case .transport: return "transport failure"
        case .cancelled: return "cancelled"
        case .none: return "no result"
        }
    }
}

/// The colours that are not endings.
enum Palette {
    static let paper = "#ffffff"
    static let fault = "#7c3aed"
    static let cancel = "#111827"
    static let finish = "#111827"
    static let backoff = "#64748b"
    static let refreshWait = "#0e7490"
    static let failedCheck = "#b91c1c"
    static let failedBand = "#fdecec"
    static let band = "#f5f7fa"
    static let grid = "#e2e8f0"
    static let axis = "#475569"
    static let ink = "#1e293b"
    static let muted = "#64748b"
}
