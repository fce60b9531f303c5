import Foundation
import TapedeckHTTP

// Redaction of streamed bodies (server-sent events, JSON lines): line by line, and the recorded
// pieces (`_chunks`) refitted to the redacted bytes.

extension Redactor {
    /// A stream of JSON lines or server-sent events with the secrets of each line's JSON replaced
    /// (an event's `data:` line after its prefix); every other byte kept.
    func redactLines(_ body: Data) -> Data {
        redactLinesMapped(body)?.body ?? body
    }

    /// ``redactLines(_:)`` with where each line went (offsets from the body's start, the line's
    /// end of line included); nil when nothing changed.
    func redactLinesMapped(_ body: Data) -> (body: Data, lines: [(old: Range<Int>, new: Range<Int>)])? {
        guard body.count <= Self.inspectionLimit else { return nil }
        var changed = false
        var output = Data()
        output.reserveCapacity(body.count)
        var lines: [(old: Range<Int>, new: Range<Int>)] = []
        var oldStart = 0
        let split = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, line) in split.enumerated() {
            let newStart = output.count
            let prefixLength = line.starts(with: Data("data:".utf8)) ? 5 : 0
            let json = Data(line.dropFirst(prefixLength))
            let redacted = json.isEmpty ? json : redactJSON(json, contentType: "application/json")
            if redacted != json {
                changed = true
                output.append(contentsOf: line.prefix(prefixLength))
                // `data: {...}` keeps its space; a JSON line keeps a trailing carriage return.
                if json.first == UInt8(ascii: " ") { output.append(UInt8(ascii: " ")) }
                output.append(redacted)
                if json.last == UInt8(ascii: "\r") { output.append(UInt8(ascii: "\r")) }
            } else {
                output.append(contentsOf: line)
            }
            let isLast = index == split.count - 1
            if !isLast { output.append(UInt8(ascii: "\n")) }
            let oldEnd = oldStart + line.count + (isLast ? 0 : 1)
            lines.append((oldStart..<oldEnd, newStart..<output.count))
            oldStart = oldEnd
        }
        return changed ? (output, lines) : nil
    }

    /// A stream body's pieces after its lines were redacted: each piece ends where its last byte
    /// went (a piece ending inside a changed line ends at the same place in the redacted line, or
    /// at its end); a piece left empty joins the next. Nil when the body is not a redacted stream.
    func linePieces(_ chunks: [BodyChunk], of body: Data, contentType: String?) -> (body: Data, chunks: [BodyChunk])? {
        guard BodyChunk.isStreamed(contentType: contentType), let (redacted, lines) = redactLinesMapped(body),
              chunks.reduce(0, { $0 + $1.bytes }) == body.count else { return nil }
        var refitted: [BodyChunk] = []
        var end = 0, newEnd = 0, line = 0
        for chunk in chunks {
            end += chunk.bytes
            while line < lines.count - 1, lines[line].old.upperBound < end { line += 1 }
            let (old, new) = lines[line]
            let mapped = end == old.upperBound ? new.upperBound : new.lowerBound + min(end - old.lowerBound, new.count)
            if mapped > newEnd {
                refitted.append(BodyChunk(bytes: mapped - newEnd, at: chunk.at))
                newEnd = mapped
            }
        }
        if newEnd < redacted.count, let last = refitted.popLast() {
            refitted.append(BodyChunk(bytes: last.bytes + redacted.count - newEnd, at: last.at))
        }
        return (redacted, refitted)
    }

    /// A streamed body's pieces after redaction changed it: each piece redacted on its own (an
    /// event or a JSON line is usually whole in its piece), kept when that gives the same body as
    /// redacting it whole; nil otherwise (a secret cut across pieces: the body replays in the
    /// network's pieces, its secrets gone).
    func redactedChunks(_ chunks: [BodyChunk], of body: Data, contentType: String?, whole: Data) -> [BodyChunk]? {
        var redacted = Data()
        var sizes: [Int] = []
        var start = body.startIndex
        for chunk in chunks {
            guard chunk.bytes > 0, start + chunk.bytes <= body.endIndex else { return nil }
            let piece = redactBody(Data(body[start..<start + chunk.bytes]), contentType: contentType)
            redacted.append(piece)
            sizes.append(piece.count)
            start += chunk.bytes
        }
        guard redacted == whole, !sizes.contains(0) else { return nil }
        return zip(chunks, sizes).map { BodyChunk(bytes: $1, at: $0.at) }
    }
}
