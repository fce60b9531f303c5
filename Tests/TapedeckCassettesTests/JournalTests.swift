import Foundation
import Synchronization
import Testing
import TapedeckCassettes
import TapedeckHTTP
import TapedeckTestSupport

@Suite("Cassettes: the recording journal and crash recovery")
struct JournalTests {
    private func interaction(_ index: Int) -> Interaction {
        Interaction(index: index, request: RecordedRequest(method: "GET", url: URL(string: "http://j.test/\(index)")!),
                    outcome: .response(RecordedResponse(status: 200, body: Data("body \(index)".utf8))))
    }

    @Test("append then finish: the cassette holds the base and every appended interaction, the journal is gone")
    func appendAndFinish() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har.gz")
        let base = Cassette(interactions: [interaction(0)])
        let journal = try CassetteJournal(cassette: url)
        for index in 1...5 { try journal.append(interaction(index)) }
        // The journal alone is a valid multi-member gzip file.
        let raw = try Data(contentsOf: journal.journalURL)
        #expect(Zlib.decompressMembers(raw).members.count == 5)
        try journal.finish(base: base)
        #expect(try CassetteFile.read(url).interactions == (0...5).map(interaction))
        #expect(!FileManager.default.fileExists(atPath: journal.journalURL.path))
    }

    @Test("a small record is stored in its member uncompressed, a large one compressed; recovery reads both")
    func storedAndCompressedRecords() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har.gz")
        let large = Interaction(index: 1, request: RecordedRequest(method: "GET", url: URL(string: "http://j.test/large")!),
                                outcome: .response(RecordedResponse(status: 200, body: Data(String(repeating: "row,", count: 20_000).utf8))))
        let journal = try CassetteJournal(cassette: url)
        try journal.append(interaction(0))
        try journal.append(large)
        let raw = try Data(contentsOf: journal.journalURL)
        let members = Zlib.decompressMembers(raw)
        #expect(members.error == nil && members.members.count == 2)
        let small = members.members[0]
        #expect(small.count < CassetteJournal.storedRecordLimit)
        #expect(raw.prefix(Zlib.storedGzipMember(small).count) == Zlib.storedGzipMember(small), "the small line is stored as is")
        #expect(members.members[1].count >= CassetteJournal.storedRecordLimit)
        #expect(raw.count - Zlib.storedGzipMember(small).count < members.members[1].count / 10, "the large line is compressed")
        // Killed here: the next opener recovers both.
        #expect(try CassetteJournal.recover(cassette: url)?.recovered == 2)
        #expect(try CassetteFile.read(url).interactions == [interaction(0), large])
    }

    @Test("a journal cut in the middle of its last record: every complete record comes back, the cut bytes are reported")
    func truncatedJournal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har")
        try CassetteFile.write(Cassette(interactions: [interaction(0)]), to: url)
        let journal = try CassetteJournal(cassette: url)
        for index in 1...4 { try journal.append(interaction(index)) }
        let path = journal.journalURL.path
        let full = try Data(contentsOf: journal.journalURL)
        try full.prefix(full.count - 7).write(to: journal.journalURL)
        let recovery = try #require(try CassetteJournal.recover(cassette: url))
        #expect(recovery.recovered == 3 && recovery.earlier == 1, "the recovered ones follow the one the cassette had")
        #expect(recovery.droppedBytes > 0)
        #expect(try CassetteFile.read(url).interactions == (0...3).map(interaction))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"), "the damaged journal is kept aside, not deleted")
        #expect(try CassetteJournal.recover(cassette: url) == nil, "nothing left to recover")
    }

    @Test("appending after a crash cut a record: the cut is trimmed and the new records stay readable")
    func appendAfterCut() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har.gz")
        let first = try CassetteJournal(cassette: url)
        for index in 0..<3 { try first.append(interaction(index)) }
        let full = try Data(contentsOf: first.journalURL)
        try full.prefix(full.count - 5).write(to: first.journalURL)
        let second = try CassetteJournal(cassette: url)
        for index in 3..<5 { try second.append(interaction(index)) }
        let recovery = try #require(try CassetteJournal.recover(cassette: url))
        #expect(recovery.droppedBytes == 0)
        #expect(try CassetteFile.read(url).interactions.map(\.index) == [0, 1, 3, 4], "record 2 was cut; 3 and 4 survive")
    }

    @Test("a record that reads but cannot replay (a 101 upgrade an older recorder kept) is skipped, not allowed to strand the others; the journal is kept aside")
    func unreplayableRecordIsSkipped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("ws.har.gz")
        let journal = try CassetteJournal(cassette: url)
        let upgrade = Interaction(index: 2, request: RecordedRequest(method: "GET", url: URL(string: "http://j.test/ws")!),
                                  outcome: .response(RecordedResponse(status: 101, statusText: "Switching Protocols")))
        for entry in [interaction(1), upgrade, interaction(3)] { try journal.append(entry) }
        let path = journal.journalURL.path
        let written = try journal.finish(base: Cassette(interactions: [interaction(0)]))
        #expect(written.interactions == [0, 1, 3].map(interaction))
        #expect(written.skipped.map(\.position) == [1] && written.skipped.first?.url == "http://j.test/ws")
        #expect(try CassetteFile.read(url).interactions == [0, 1, 3].map(interaction))
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"), "the skipped record's bytes are kept")
        // The same through recovery after a crash.
        let other = directory.file("crashed.har.gz")
        let left = try CassetteJournal(cassette: other)
        for entry in [interaction(1), upgrade] { try left.append(entry) }
        let recovery = try #require(try CassetteJournal.recover(cassette: other))
        #expect(recovery.recovered == 1 && recovery.skipped.count == 1)
        #expect(try CassetteFile.read(other).interactions == [interaction(1)])
    }

    @Test("a recording that stops normally with journal bytes that did not fit (damage, or past a cassette's size) says so, keeps them aside, and writes what fit")
    func stopWithUnfitBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("big.har.gz")
        let journal = try CassetteJournal(cassette: url)
        try journal.append(interaction(1))
        // Bytes no reader can take, between two records (as a record past the size limit is).
        let handle = try FileHandle(forWritingTo: journal.journalURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("not gzip at all".utf8))
        try handle.close()
        try journal.append(interaction(2))
        let path = journal.journalURL.path
        let error = try #require(throws: CassetteError.self) { try journal.finish(base: Cassette()) }
        #expect(error.reason.contains("the cassette holds 2 interactions, but 15 bytes of the journal were damaged on disk")
                && error.reason.contains("\(path).damaged"), "the record after the damage is read again: \(error)")
        #expect(try CassetteFile.read(url).interactions == [interaction(1), interaction(2)])
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"))
    }

    @Test("damage inside a journal (a flipped byte in one record, a record of bad JSON) loses that record only: the ones after it are recovered, the damage is told and kept aside")
    func damageInsideTheJournal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har.gz")
        let journal = try CassetteJournal(cassette: url)
        var ends: [Int] = []
        for index in 1...6 {
            try journal.append(interaction(index))
            ends.append(try Data(contentsOf: journal.journalURL).count)
        }
        // A byte in the middle of record 3's compressed data flipped, and record 5 replaced by
        // a well-formed gzip member of something that is no HAR entry
        var bytes = try Data(contentsOf: journal.journalURL)
        let middleOfThird = (ends[1] + ends[2]) / 2
        bytes[middleOfThird] ^= 0xFF
        let notAnEntry = try Zlib.compress(Data(#"{"not":"an entry"}"#.utf8), format: .gzip)
        bytes = bytes.prefix(ends[3]) + notAnEntry + bytes.suffix(from: ends[4])
        try bytes.write(to: journal.journalURL)
        let path = journal.journalURL.path
        // Opening it to append would trim at the damage, destroying the records after it: refused
        let refused = try #require(throws: CassetteError.self) { try CassetteJournal(cassette: url) }
        #expect(refused.reason.contains("damaged bytes at byte") && refused.hint.contains("recover it first"), "\(refused)")
        #expect(try Data(contentsOf: journal.journalURL) == bytes, "nothing trimmed")

        let recovery = try #require(try CassetteJournal.recover(cassette: url))
        #expect(try CassetteFile.read(url).interactions == [1, 2, 4, 6].map(interaction), "only the damaged records are lost")
        #expect(recovery.recovered == 4 && recovery.damagedBytes > 0 && recovery.droppedBytes == 0, "\(recovery)")
        #expect(recovery.skipped.count == 1 && recovery.skipped.first?.error.reason.hasPrefix("not a HAR entry") == true, "\(recovery.skipped)")
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"), "the damaged bytes are kept aside")
    }

    @Test("a crash between writing the cassette and deleting the journal: merging again adds nothing")
    func mergeIsIdempotent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har")
        let journal = try CassetteJournal(cassette: url)
        for index in 0..<3 { try journal.append(interaction(index)) }
        let bytes = try Data(contentsOf: journal.journalURL)
        try CassetteJournal.recover(cassette: url)
        try bytes.write(to: journal.journalURL)          // as if the unlink never happened
        let again = try #require(try CassetteJournal.recover(cassette: url))
        #expect(again.recovered == 0)
        #expect(try CassetteFile.read(url).interactions.count == 3)
        try journal.finish(base: try CassetteFile.read(url))
        #expect(try CassetteFile.read(url).interactions.count == 3)
        #expect(throws: CassetteError.self, "finishing twice is refused, not a rewrite without the journal") {
            try journal.finish(base: Cassette())
        }
        #expect(try CassetteFile.read(url).interactions.count == 3)
    }

    @Test("the journal redacts by default: a secret never reaches the disk")
    func journalRedacts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har")
        let journal = try CassetteJournal(cassette: url)
        var secret = interaction(0)
        secret.request.headers = [HeaderField("Authorization", "Bearer s3cr3t-value")]
        try journal.append(secret)
        let raw = try Zlib.decompress(Data(contentsOf: journal.journalURL))
        #expect(!String(decoding: raw, as: UTF8.self).contains("s3cr3t"))
        try journal.finish(base: Cassette())
        #expect(try CassetteFile.read(url).interactions[0].request.headers == [HeaderField("Authorization", "REDACTED")])
    }

    @Test("background appends made while a commit is held go to disk as one batch: one fsync, every callback once, in order")
    func groupCommit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har.gz")
        let journal = try CassetteJournal(cassette: url)
        try journal.append(interaction(0))
        let calls = Mutex<[Int]>([])
        let durable = Mutex<[Int: Int]>([:])
        journal.suspendCommits()
        for index in 1...40 {
            journal.append(interaction(index)) { error in
                #expect(error == nil)
                calls.withLock { $0.append(index) }
                // Durable when told: the record is in the file by the time its callback runs.
                let members = (try? Data(contentsOf: journal.journalURL)).map { Zlib.decompressMembers($0).members.count } ?? 0
                durable.withLock { $0[index] = members }
            }
        }
        #expect(calls.withLock { $0 }.isEmpty, "nothing is acknowledged before it is written")
        journal.resumeCommits()
        journal.flush()
        #expect(calls.withLock { $0 } == Array(1...40))
        #expect(durable.withLock { $0 }.values.allSatisfy { $0 == 41 })
        #expect(journal.statistics == CassetteJournal.Statistics(records: 41, fsyncs: 2), "one fsync for the single append, one for the batch")
        try journal.finish(base: Cassette())
        #expect(try CassetteFile.read(url).interactions == (0...40).map(interaction))
    }

    @Test("a background append after finish reports the error and writes nothing")
    func appendAfterFinish() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.file("rec.har.gz")
        let journal = try CassetteJournal(cassette: url)
        journal.append(interaction(1)) { #expect($0 == nil) }
        try journal.finish(base: Cassette())
        let failure = Mutex<CassetteError?>(nil)
        journal.append(interaction(2)) { error in failure.withLock { $0 = error } }
        journal.flush()
        #expect(failure.withLock { $0 }?.reason.contains("already finished") == true)
        #expect(try CassetteFile.read(url).interactions == [interaction(1)])
        #expect(!FileManager.default.fileExists(atPath: journal.journalURL.path))
    }

    /// An upstream that answers every request by switching protocols.
    private struct SwitchingUpstream: LiveTransport {
        func forward(_ request: RequestSnapshot, completion: @escaping @Sendable (LiveForwarder.Result) -> Void) -> @Sendable () -> Void {
            completion(LiveForwarder.Result(request: RecordedRequest(request),
                                            outcome: .response(RecordedResponse(status: 101, statusText: "Switching Protocols")),
                                            timings: ExchangeTimings(wait: .milliseconds(1)), startedDateTime: "2026-11-26T00:00:00.000Z"))
            return {}
        }
    }

    @Test("a recorder given a 101 by its upstream answers a failure and journals nothing: an upgrade could not be replayed")
    func recorderKeepsNoUpgrade() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var options = CassetteRecorder.Options(mode: .all)
        options.transport = SwitchingUpstream()
        let recorder = try CassetteRecorder(cassette: directory.file("up.har.gz"), options: options)
        let reply = recorder.reply(to: RequestSnapshot(method: .get, url: URL(string: "http://j.test/ws")!),
                                   context: ResponderContext(exchange: 1, transaction: 0, time: .zero))
        guard case let .deferred(deferred) = reply else { Issue.record("not a live reply: \(reply)"); return }
        let final = Mutex<Reply?>(nil)
        _ = deferred.start { answer in final.withLock { $0 = answer } }
        guard case let .failure(failure, _)? = final.withLock({ $0 }) else { Issue.record("answered \(String(describing: final.withLock { $0 }))"); return }
        #expect(failure.urlErrorCode == .badServerResponse)
        #expect(try recorder.finish().recorded == 0)
    }
}

