public import Foundation
public import TapedeckHTTP
import Synchronization
import TapedeckScheduling

/// A cassette in use by a test or a tool: a `Responder` that replays what the cassette holds and,
/// depending on its ``Mode``, records what it does not through a ``LiveForwarder`` into the
/// cassette's crash-safe journal. ``finish(succeeded:)`` merges the journal into the cassette atomically.
///
/// ```swift
/// let recorder = try CassetteRecorder(cassette: url, options: .init(mode: .once))
/// network.setFallback(recorder, options: RouteOptions(latency: .recorded(scale: 1)))
/// ... run the simulation ...
/// let summary = try recorder.finish()     // summary.misses: requests nothing answered
/// ```
///
/// The client of a recording run gets the live, unredacted answers (a login's real token works
/// for the next request); the journal and the cassette get the redacted ones.
public final class CassetteRecorder: Responder {
    /// When to go to the live network (the modes of Ruby's vcr).
    public enum Mode: String, CaseIterable, Hashable, Sendable {
        /// Replay only (vcr's `none`; spelled so that it never reads as `Optional.none`): a request
        /// the cassette does not answer is an error naming the closest entries.
        case replayOnly = "none"
        /// Record everything when the cassette does not exist yet; otherwise like `none`.
        case once
        /// Replay what matches, record what does not (appended to the cassette).
        case newEpisodes = "new_episodes"
        /// Record everything again; the cassette is replaced when the recording finishes.
        case all

        /// Parses `none`, `once`, `new_episodes` (also `newEpisodes`, `new-episodes`) or `all`.
        public init?(parsing text: String) {
            let key = text.lowercased().replacingOccurrences(of: "-", with: "_")
            switch key {
            case "none", "replay_only", "replayonly": self = .replayOnly
            case "once": self = .once
            case "new_episodes", "newepisodes": self = .newEpisodes
            case "all": self = .all
            default: return nil
            }
        }
    }

    /// What to do with a request the cassette does not answer when not recording.
    public enum Playback: String, Hashable, Sendable {
        /// Fail it (URLError `.unsupportedURL`, with the closest recorded entries in its description).
        case strict
        /// Send it to the live network without recording it.
        case passthrough
    }

    /// How a recorder behaves.
    public struct Options: Sendable {
        /// When to go to the live network.
        public var mode: Mode
        /// What to do with a miss when not recording.
        public var playback: Playback
        /// How requests are matched against the recorded ones.
        public var rules: MatchRules
        /// What to answer once the matches are used up.
        public var afterLast: CassettePlayer.AfterLast
        /// Applied to everything recorded, and to both sides of matching.
        public var redactor: Redactor
        /// Timeouts of live requests.
        public var live: LiveForwarder.Options
        /// What carries live requests; nil: a ``LiveForwarder`` with `live`'s timeouts, made on
        /// the first live request.
        public var transport: (any LiveTransport)?
        /// How the cassette is written when the recording finishes.
        public var writeOptions: HARCodec.WriteOptions
        /// Refuse a cassette with entries that cannot be replayed, instead of skipping them.
        public var strictLoading: Bool
        /// Answer a live exchange only once it is journalled: one that could not be stored is
        /// answered as a failure (`URLError.cannotWriteToFile`) instead of the live answer, so a
        /// client never holds an answer the cassette lacks (`tapedeck record` sets it). When false
        /// (the default), the live answer is delivered and ``finish(succeeded:)`` reports the loss.
        public var answersOnlyStored = false
        /// Keep a live exchange the client cancelled before its answer came, as a recorded
        /// cancellation (`URLError.cancelled` after the time it ran): replayed, the request ends
        /// cancelled at that time, as it did, instead of finding no entry and failing the test
        /// for good. True by default (an app's tests that cancel); `tapedeck record` sets it
        /// false: a proxy's client that went away says nothing about the upstream.
        public var keepsCancelled = true

        /// Options; the defaults replay only, strictly, with the default rules and redaction.
        public init(
            mode: Mode = .replayOnly, playback: Playback = .strict, rules: MatchRules = MatchRules(),
            afterLast: CassettePlayer.AfterLast = .repeatLast, redactor: Redactor = Redactor(),
            live: LiveForwarder.Options = LiveForwarder.Options(), writeOptions: HARCodec.WriteOptions = .init(),
            strictLoading: Bool = false, transport: (any LiveTransport)? = nil
        ) {
            self.transport = transport
            self.strictLoading = strictLoading
            self.mode = mode
            self.playback = playback
            self.rules = rules
            self.afterLast = afterLast
            self.redactor = redactor
            self.live = live
            self.writeOptions = writeOptions
        }
    }

    /// The cassette file (it may not exist yet).
    public let cassetteURL: URL
    /// The options the recorder was opened with.
    public let options: Options
    /// True when requests the cassette does not answer go to the live network and are recorded.
    public let isRecording: Bool
    /// The cassette as it was when the recorder opened it (empty when it did not exist).
    public let base: Cassette
    /// What opening the cassette recovered from an interrupted recording's journal (nil: there
    /// was none to merge), for a tool to tell its user — `tapedeck record` does, as `serve` does.
    public let recovery: CassetteJournal.Recovery?

    private let player: CassettePlayer?
    /// This recorder's entry in ``CassetteHolds`` (released by `finish` or deinit).
    private let holdKey: String
    private let holdIsExclusive: Bool
    /// Claimed by whichever of `finish` and deinit releases the hold first.
    private let holdRelease = OnceFlag()
    /// The hold across processes of a recorder that may write (nil for a reader).
    private let lock: CassetteLock?
    let state: Mutex<State>
    let forwarder = Mutex<(any LiveTransport)?>(nil)

    struct State {
        var nextIndex: Int
        var journal: CassetteJournal?
        var replayed = 0
        var recorded = 0
        var passedThrough = 0
        var misses: [String] = []
        var storeErrors: [CassetteError] = []
        var recordedFailures: [String] = []
        var inFlight = 0
        var finished = false
    }

    /// Opens `cassette` (recovering an interrupted recording's journal first). A cassette that
    /// cannot be read is an error in every mode: nothing already stored is overwritten.
    public init(cassette: URL, options: Options = Options()) throws(CassetteError) {
        cassetteURL = cassette
        self.options = options
        let files = FileManager.default
        let journalLeft = files.fileExists(atPath: CassetteJournal.journalURL(for: cassette).path)
        // A first recording that crashed left only its journal: `once` resumes it (replays what
        // it recovers, records the rest) rather than taking it for a finished cassette.
        let resumesFirst = options.mode == .once && journalLeft && !files.fileExists(atPath: cassette.path)
        // Whether this recorder may write decides the hold, before recovery (which writes) runs.
        let mayRecord = switch options.mode {
        case .replayOnly: false
        case .once: !files.fileExists(atPath: cassette.path) || journalLeft
        case .newEpisodes, .all: true
        }
        // Only a recording writes beside the cassette; a replay of one in a read-only place is fine.
        if mayRecord { try Self.checkWritable(cassette, creatingDirectories: true) }
        let key = CassetteHolds.key(for: cassette)
        holdKey = key
        holdIsExclusive = mayRecord
        // A reader that finds a journal holds the cassette alone while it recovers it.
        let recovers = try CassetteHolds.shared.acquire(
            key, as: mayRecord ? .recorder : journalLeft ? .recoveringReader : .reader, file: cassette.path)
        var recovered: CassetteJournal.Recovery?
        do throws(CassetteError) {
            if CassetteFile.isStream(cassette.path) {
                // A pipe is read once (and waits for a writer) and cannot take the merged cassette
                // back; a device keeps nothing. (`cassette inspect` and `serve` read pipes.)
                throw CassetteError(.unreadable, file: cassette.path, reason: "this is no regular file (a named pipe or a device): a recorder replays the cassette and merges what it records into it",
                                    hint: "record into a .har or .har.gz file")
            }
            // Another process recording it would have its journal merged or replaced under it.
            lock = mayRecord ? try CassetteLock.acquire(for: cassette) : nil
            if recovers {
                defer { if !mayRecord { CassetteHolds.shared.finishRecovery(key) } }
                recovered = try CassetteJournal.recoverHeld(cassette: cassette, lockedByCaller: mayRecord)
            }
            // Another tool's cassette replays as it is; one a recording would write HAR over is refused.
            base = files.fileExists(atPath: cassette.path)
                ? try CassetteFile.read(cassette, strict: options.strictLoading, foreign: mayRecord ? .refuse : .convert) : Cassette()
            if mayRecord, let first = base.skipped.first {
                // Writing the cassette back would drop what could not be read: nothing stored is lost.
                throw CassetteError(.entry, file: cassette.path, place: first.error.place,
                                    reason: "cannot record into a cassette with \(base.skipped.count) entr\(base.skipped.count == 1 ? "y" : "ies") Tapedeck cannot replay (\(first.error.reason)): writing it would drop them",
                                    hint: "record into a new cassette, or replay it without recording (mode none)")
            }
        } catch {
            CassetteHolds.shared.release(key, exclusive: mayRecord)
            throw error
        }
        recovery = recovered
        let exists = files.fileExists(atPath: cassette.path)
        isRecording = switch options.mode {
        case .replayOnly: false
        case .once: !exists || resumesFirst
        case .newEpisodes, .all: true
        }
        let replays = options.mode == .replayOnly || options.mode == .newEpisodes || (options.mode == .once && exists)
        // When misses are recorded, a consumed entry must not answer again: the new request is a new episode.
        let afterLast = options.mode == .newEpisodes || resumesFirst ? .noMatch : options.afterLast
        player = replays
            ? CassettePlayer(cassette: base, rules: options.rules, afterLast: afterLast, redactor: options.redactor, source: cassette.path)
            : nil
        // New interactions are numbered after the old ones, so a recording that crashes before
        // `finish` is recovered as an addition to the cassette, never a loss of it.
        state = Mutex(State(nextIndex: (base.interactions.map(\.index).max() ?? -1) + 1))
    }

    /// Answers from the cassette, or, when the mode says so, goes to the live network and records
    /// the answer (a deferred reply); a miss otherwise fails or passes through, per `options.playback`.
    public func reply(to request: RequestSnapshot, context: ResponderContext) -> Reply {
        var missReason: String?
        if let player {
            let reply = player.reply(to: request, context: context)
            if case let .noMatch(reason) = reply {
                missReason = reason
            } else {
                state.withLock { $0.replayed += 1 }
                return reply
            }
        }
        if isRecording {
            let index = state.withLock { state in
                defer { state.nextIndex += 1 }
                return state.nextIndex
            }
            return live(request, label: "record") { [self] result, done in
                if case let .response(response) = result.outcome, response.status == 101 {
                    // An upgrade is no HTTP exchange: it could not be replayed, so it is not kept.
                    return done(.urlError(.badServerResponse, message: "the server switched protocols (101 \(response.statusText)): only HTTP exchanges are recorded"))
                }
                store(result.interaction(index: index)) { [self] error in
                    guard let error, options.answersOnlyStored else { return done(nil) }
                    done(.urlError(.cannotWriteToFile, message: "the journal could not keep this interaction, so it is not answered: \(error.reason)"))
                }
            }
        }
        let reason = missReason ?? "\(cassetteURL.path): no recorded interaction matches \(request)"
        if options.playback == .passthrough {
            state.withLock { $0.passedThrough += 1 }
            return live(request, label: "passthrough") { _, done in done(nil) }
        }
        state.withLock { $0.misses.append(reason) }
        return .noMatch(reason: reason)
    }

    /// Journals one recorded interaction in the background (group commit: see
    /// ``CassetteJournal/append(_:then:)``), then calls `done` with nil when it was stored, or
    /// the error (which is also kept for ``finish(succeeded:)`` to report).
    private func store(_ interaction: Interaction, then done: @escaping @Sendable (CassetteError?) -> Void) {
        let opened = state.withLock { state -> Result<CassetteJournal, CassetteError> in
            guard !state.finished else {
                let error = CassetteError(
                    .io, file: cassetteURL.path, reason: "interaction \(interaction.index) arrived after finish() and was not recorded",
                    hint: "finish the recorder only once every request it forwarded has been answered")
                state.storeErrors.append(error)
                return .failure(error)
            }
            if let journal = state.journal { return .success(journal) }
            do throws(CassetteError) {
                let journal = try CassetteJournal(cassette: cassetteURL, redactor: options.redactor)
                state.journal = journal
                return .success(journal)
            } catch {
                state.storeErrors.append(error)
                return .failure(error)
            }
        }
        let journal: CassetteJournal
        switch opened {
        case let .success(opened): journal = opened
        case let .failure(error): return done(error)
        }
        journal.append(interaction) { [self] error in
            let stored = state.withLock { state -> Bool in
                if let error {
                    state.storeErrors.append(error)
                    return false
                }
                state.recorded += 1
                let shown = "\(interaction.request.method) \(options.redactor.redact(interaction.request.url).absoluteString)"
                if case let .failure(failure) = interaction.outcome {
                    state.recordedFailures.append("\(shown): \(failure.message)")
                } else if let response = interaction.response, let failure = response.interruption {
                    state.recordedFailures.append("\(shown): \(response.status), broke off after \(response.body.count) body bytes: \(failure.message)")
                }
                return true
            }
            done(stored ? nil : error)
        }
    }

    /// Live requests forwarded and not yet done with: neither kept and answered nor, when
    /// cancelled, told of their cancel. ``finish(succeeded:)`` reports any still running, so a
    /// tool that cancels requests to stop waits for this to reach 0 first.
    public var liveRequests: Int {
        state.withLock { $0.inFlight }
    }

    /// Requests nothing answered so far, each explained.
    public var misses: [String] {
        state.withLock { $0.misses }
    }

    /// Merges what was recorded into the cassette (atomically) and says what happened. In `all`
    /// mode the cassette is replaced — unless `succeeded` is false (the test failed) or something
    /// could not be stored: then the new recording is added to the old one, so a half-done
    /// re-recording never replaces a good cassette and nothing recorded is lost. With no traffic,
    /// nothing is written. Throws when something recorded could not be stored (or live requests
    /// were still running); whatever was stored is in the cassette by then.
    @discardableResult
    public func finish(succeeded: Bool = true) throws(CassetteError) -> Summary {
        let (journal, snapshot) = state.withLock { state -> (CassetteJournal?, State) in
            state.finished = true
            return (state.journal, state)
        }
        defer { releaseHold() }
        var problems = snapshot.storeErrors
        if snapshot.inFlight > 0 {
            problems.append(CassetteError(
                .io, file: cassetteURL.path, reason: "\(snapshot.inFlight) live request(s) were still running and were not recorded",
                hint: "finish the recorder only once every request it forwarded has been answered (or cancelled)"))
        }
        var written: Cassette?
        if let journal {
            let replacing = options.mode == .all && succeeded && problems.isEmpty
            do throws(CassetteError) {
                written = try journal.finish(base: base, replacing: replacing, options: options.writeOptions)
            } catch {
                guard let first = problems.first else { throw error }
                // Both told: what the journal could not keep is lost, whatever the merge does later.
                throw CassetteError(error.kind, file: error.file, place: error.place, reason: """
                    \(error.reason); and before that, \(problems.count) problem(s) while recording lost \
                    what they name (the journal does not hold it either); first: \(first.reason)
                    """, hint: error.hint)
            }
        }
        if let error = problems.first {
            throw CassetteError(error.kind, file: error.file, place: error.place,
                                reason: "\(problems.count) problem(s) while recording; first: \(error.reason)", hint: error.hint)
        }
        return Summary(
            replayed: snapshot.replayed, recorded: snapshot.recorded, passedThrough: snapshot.passedThrough,
            misses: snapshot.misses, unplayed: player?.unplayed ?? [], recordedFailures: snapshot.recordedFailures, written: written,
            journal: journal?.statistics)
    }

    deinit {
        releaseHold()
    }

    private func releaseHold() {
        if holdRelease.claim() {
            lock?.release()
            CassetteHolds.shared.release(holdKey, exclusive: holdIsExclusive)
        }
    }
}
