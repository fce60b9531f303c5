import Foundation
import HTTPTypes
import TapedeckHTTP

// The answers only some requests can take (a 304, a 206), and which skipped entries a miss names:
// rules that hold whatever the match rules say.
extension CassettePlayer {
    /// Why `recorded`'s answer cannot answer `live` whatever the rules say, or nil when it can: a
    /// `304 Not Modified` answers only a conditional request (a cold browser that sends no
    /// `If-None-Match` got the 304 a warm one had recorded, and had no body to run), and a `206`
    /// only a request for the same `Range` (a player seeking elsewhere got the first bytes).
    static func cannotAnswer(_ live: RecordedRequest, with recorded: Interaction) -> String? {
        guard case let .response(response) = recorded.outcome else { return nil }
        switch response.status {
        case 304:
            guard isConditional(live) else {
                // Firefox and Internet Explorer record a 304 with the body they had cached: that
                // body answers a client with nothing cached (as a 200, see ``answering(_:to:)``).
                if !response.body.isEmpty { return nil }
                return "answer 304 Not Modified answers only a conditional request (If-None-Match or If-Modified-Since), and this one has neither"
            }
            // Not modified only for a version the client holds: one of the tags it names must be
            // one the recorded request named (a client holding another version must not keep it).
            guard let asked = live.headers.value(for: "If-None-Match"), let recordedTags = recorded.request.headers.value(for: "If-None-Match")
            else { return nil }
            let mine = entityTags(asked), theirs = entityTags(recordedTags)
            return mine.contains("*") || theirs.contains("*") || !mine.isDisjoint(with: theirs) ? nil
                : "answer 304 Not Modified was for If-None-Match \(recordedTags), and this request holds \(asked)"
        case 206:
            let wanted = rangeAsked(live), answered = rangeAsked(recorded.request)
            return wanted == answered ? nil
                : "answer 206 holds Range \(answered ?? "(none)"), and this request asks for \(wanted ?? "no range")"
        default:
            return nil
        }
    }

    /// The `Range` a request asks for, spaces and case aside; nil without one.
    static func rangeAsked(_ request: RecordedRequest) -> String? {
        request.headers.value(for: "Range").map { $0.lowercased().filter { !$0.isWhitespace } }
    }

    /// Whether `request` asks for an answer only if the resource changed.
    static func isConditional(_ request: RecordedRequest) -> Bool {
        request.headers.value(for: "If-None-Match") != nil || request.headers.value(for: "If-Modified-Since") != nil
    }

    /// `reply`, as it answers `live`: a `304` recorded with the body a browser had cached
    /// (Firefox's and Internet Explorer's HAR), to a request that is not conditional, is that
    /// body as a `200` — a cold client gets the page a warm one was shown.
    static func answering(_ reply: Reply, to live: RecordedRequest) -> Reply {
        guard case var .response(plan) = reply, plan.head.status == 304, !plan.body.isEmpty, !isConditional(live) else { return reply }
        plan.head.status = 200
        plan.reasonPhrase = "OK"
        plan.head.headerFields[.contentLength] = nil
        return .response(plan)
    }

    /// The entity tags of an `If-None-Match` value, compared weakly (a `W/` prefix dropped), as
    /// RFC 9110 compares them for it.
    static func entityTags(_ value: String) -> Set<String> {
        Set(value.split(separator: ",").map { tag in
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
        })
    }

    /// Whether a skipped entry names `live`'s method, host and path. The scheme, port and query
    /// are not compared: the entry never got as far as the rules, and `serve`, which speaks plain
    /// HTTP, sees an https entry asked for as `http://host/path` by a proxy-style client.
    static func isSkippedCandidate(_ skipped: SkippedEntry, for live: RecordedRequest) -> Bool {
        guard skipped.method.uppercased() == live.method.uppercased(),
              let url = LenientURL.parse(LenientURL.droppingFragment(skipped.url)) else { return false }
        func path(_ url: URL) -> String {
            let path = url.path(percentEncoded: true)
            return path.isEmpty ? "/" : path
        }
        return url.host?.lowercased() == live.url.host?.lowercased() && path(url) == path(live.url)
    }

    /// How far apart two paths are: 0 when equal, else 1,000 plus a rank that puts paths sharing
    /// more of their start and end with the other first (`/api/slowx` is closer to `/api/slow`
    /// than `/` is, `/nope` closer to `/nothing-here` than to `/json`, and a long path differing
    /// by one character closer than one differing in its whole tail) — linear, as a miss
    /// explanation reads every entry.
    static func pathDistance(_ a: String, _ b: String) -> Int {
        pathDistance(Array(a.utf8), Array(b.utf8))
    }

    /// ``pathDistance(_:_:)`` of two paths' UTF-8 bytes.
    static func pathDistance(_ x: [UInt8], _ y: [UInt8]) -> Int {
        guard x != y else { return 0 }
        var prefix = 0
        while prefix < min(x.count, y.count), x[prefix] == y[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(x.count, y.count) - prefix, x[x.count - 1 - suffix] == y[y.count - 1 - suffix] { suffix += 1 }
        return 1_000 + max(0, 999 - prefix - suffix)
    }
}
