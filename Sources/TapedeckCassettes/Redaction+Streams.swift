import Foundation
import TapedeckHTTP

// Redaction of streamed bodies (server-sent events, JSON lines): line by line, and the recorded
// pieces (`_chunks`) refitted to the redacted bytes.

extension Redactor {
    /// A server-sent event's data line starts so.
    private static let eventDataPrefix = Array("data:".utf8)

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
        // (Without JSON rules, redactJSON leaves a document as it is: so does the walk's short cut.)
        let hasJSONRules = !jsonFields.isEmpty || secretLookingNames
        // Built from the first line that changes on (until then a line's new place is its old one).
        var output = Data()
        var lines: [(old: Range<Int>, new: Range<Int>)] = []
        body.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = bytes.count
            var start = 0
            while true {
                var end = start
                while end < count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                let isLast = end == count
                let newStart = changed ? output.count : start
                // An event's `data:`, a JSON text sequence's record separator (RFC 7464).
                let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                let prefixLength = line.starts(with: Self.eventDataPrefix) ? 5 : line.first == 0x1E ? 1 : 0
                let text = UnsafeBufferPointer(rebasing: line[prefixLength...])
                // Only a line that starts as JSON is read as JSON (an HTML page's lines are not); one
                // the byte walk reads needs none of the whole-body cases (JSONP, prefixes, a BOM).
                var redacted: (json: Data, to: Data)?
                if Self.startsAsJSON(text) {
                    let json = Data(buffer: text)
                    let to = hasJSONRules ? redactJSONInPlace(json) ?? redactJSON(json, contentType: "application/json")
                        : redactJSON(json, contentType: "application/json")
                    if to != json { redacted = (json, to) }
                }
                if let (json, to) = redacted {
                    if !changed {
                        changed = true
                        output.reserveCapacity(count + count / 8)
                        output.append(UnsafeBufferPointer(rebasing: bytes[..<start]))
                    }
                    output.append(UnsafeBufferPointer(rebasing: line[..<prefixLength]))
                    // `data: {...}` keeps its space; a JSON line keeps a trailing carriage return (an
                    // edit in place kept both; a document written again did not).
                    if json.first == UInt8(ascii: " "), to.first != UInt8(ascii: " ") { output.append(UInt8(ascii: " ")) }
                    output.append(to)
                    if json.last == UInt8(ascii: "\r"), to.last != UInt8(ascii: "\r") { output.append(UInt8(ascii: "\r")) }
                } else if changed {
                    output.append(line)
                }
                if !isLast, changed { output.append(UInt8(ascii: "\n")) }
                let oldEnd = end + (isLast ? 0 : 1)
                lines.append((start..<oldEnd, newStart..<(changed ? output.count : oldEnd)))
                if isLast { break }
                start = end + 1
            }
        }
        return changed ? (output, lines) : nil
    }

    /// A stream body with its lines redacted, and its pieces after: each piece ends where its
    /// last byte went (a piece ending inside a changed line ends at the same place in the
    /// redacted line, or at its end); a piece left empty joins the next; nil pieces when they did
    /// not fit the body. Nil when nothing was redacted.
    func linePieces(_ chunks: [BodyChunk], of body: Data) -> (body: Data, chunks: [BodyChunk]?)? {
        guard let (redacted, lines) = redactLinesMapped(body) else { return nil }
        guard chunks.reduce(0, { $0 + $1.bytes }) == body.count else { return (redacted, nil) }
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

    /// A gzip-compressed stream (one `gzip` coding) with its lines redacted and its pieces kept:
    /// the wire pieces are decoded one by one to find where each ended in the text, the text's
    /// lines are redacted and its pieces refitted (``linePieces(_:of:)``), then each piece is
    /// compressed with a sync flush after it, as a server streaming through gzip does — so a
    /// replay still hands the client each event when it came. Nil when nothing was redacted, or
    /// when the pieces cannot be followed (another coding, pieces that do not add up, a body that
    /// does not inflate): the caller then redacts the body whole.
    func gzipLinePieces(_ chunks: [BodyChunk], of wire: Data, coding: String?) -> (body: Data, chunks: [BodyChunk])? {
        guard let coding, ["gzip", "x-gzip"].contains(coding.trimmingCharacters(in: .whitespaces).lowercased()),
              chunks.count > 1, chunks.reduce(0, { $0 + $1.bytes }) == wire.count,
              let inflater = try? Inflater(format: .gzip) else { return nil }
        var text = Data()
        var textChunks: [BodyChunk] = []
        var offset = wire.startIndex
        for chunk in chunks {
            guard let decoded = try? inflater.append(Data(wire[offset..<offset + chunk.bytes])) else { return nil }
            offset += chunk.bytes
            text.append(decoded)
            textChunks.append(BodyChunk(bytes: decoded.count, at: chunk.at))
        }
        guard let (redacted, refitted) = linePieces(textChunks, of: text), let refitted, !refitted.isEmpty,
              let deflater = try? Deflater(format: .gzip) else { return nil }
        var body = Data()
        var wireChunks: [BodyChunk] = []
        var start = redacted.startIndex
        for (index, piece) in refitted.enumerated() {
            let slice = Data(redacted[start..<start + piece.bytes])
            start += piece.bytes
            let isLast = index == refitted.count - 1
            guard var compressed = try? deflater.append(slice) else { return nil }
            guard let tail = try? (isLast ? deflater.finish() : deflater.flush()) else { return nil }
            compressed.append(tail)
            body.append(compressed)
            wireChunks.append(BodyChunk(bytes: compressed.count, at: piece.at))
        }
        return (body, wireChunks)
    }
}

