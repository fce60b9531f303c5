import Foundation
import Synchronization
import TapedeckCassettes

/// Cassettes read once and kept, for a worker that runs many seeds of one scenario. A `Cassette`
/// is an immutable value; each run still builds its own `CassettePlayer` (which holds what the run
/// consumed), so nothing a run changes is kept.
final class CassetteCache: Sendable {
    private let loaded = Mutex<[URL: Cassette]>([:])

    /// The cassette at `url`, read (after recovering an interrupted recording's journal) on first use.
    func cassette(at url: URL) throws(CassetteError) -> Cassette {
        if let cassette = loaded.withLock({ $0[url] }) { return cassette }
        try CassetteJournal.recover(cassette: url)
        let cassette = try CassetteFile.read(url)
        loaded.withLock { $0[url] = cassette }
        return cassette
    }
}
