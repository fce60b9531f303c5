package import Foundation
package import TapedeckCassettes
import TapedeckHTTP

/// `events` sent through gzip as a streaming server sends them: one piece per event, each
/// ending in a sync flush so it decodes on arrival, the i-th at `times[i]`; the gzip trailer
/// ends the last event's piece, or comes as a piece of its own at `trailerAt` when given.
package func gzipEventStream(_ events: [String], at times: [Duration], trailerAt: Duration? = nil) throws -> (body: Data, chunks: [BodyChunk]) {
    let deflater = try Deflater(format: .gzip)
    var body = Data()
    var chunks: [BodyChunk] = []
    for (index, event) in events.enumerated() {
        var piece = try deflater.append(Data(event.utf8))
        piece.append(index == events.count - 1 && trailerAt == nil ? try deflater.finish() : try deflater.flush())
        body.append(piece)
        chunks.append(BodyChunk(bytes: piece.count, at: times[index]))
    }
    if let trailerAt {
        let trailer = try deflater.finish()
        body.append(trailer)
        chunks.append(BodyChunk(bytes: trailer.count, at: trailerAt))
    }
    return (body, chunks)
}
