import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckTesting

/// A parameterized test's cases share its `.cassette`: in `once`, the case that creates it
/// records, and the later cases of the run record what they add instead of replaying only.
@Suite("Trait: a parameterized test's cases share its cassette", .serialized)
struct ParameterizedCassetteTests {
    static let cassette = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-once-\(UUID().uuidString).har")
    static let cities = ["Paris", "Oslo", "Rome"]
    /// Cases finished so far; the last one removes the shared cassette.
    static let finished = Mutex(0)

    @Test("in once, the first case creates the cassette and records; the later cases record new episodes", arguments: cities)
    func casesRecordTheirOwn(city: String) throws {
        defer {
            let all = Self.finished.withLock { count in
                count += 1
                return count == Self.cities.count
            }
            if all { try? FileManager.default.removeItem(at: Self.cassette) }
        }
        let test = try #require(Test.current)
        let mode = CassetteTrait.mode(.once, for: test, cassette: Self.cassette)
        if FileManager.default.fileExists(atPath: Self.cassette.path) {
            #expect(mode == .newEpisodes, "\(city): a later case of the run that created the cassette")
        } else {
            #expect(mode == .once, "\(city): the first case")
            try CassetteFile.write(Cassette(), to: Self.cassette)
        }
        // Another mode is left as it is.
        #expect(CassetteTrait.mode(.replayOnly, for: test, cassette: Self.cassette) == .replayOnly)
    }

    @Test("a test that is not parameterized keeps once: an existing cassette replays")
    func plainTestKeepsOnce() throws {
        let existing = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-once-plain-\(UUID().uuidString).har")
        try CassetteFile.write(Cassette(), to: existing)
        defer { try? FileManager.default.removeItem(at: existing) }
        #expect(CassetteTrait.mode(.once, for: try #require(Test.current), cassette: existing) == .once)
    }
}
