import TapedeckCassettes

/// What a recording run (`tapedeck run FILE --record MODE`) did to its cassette: how many entries
/// it had and has, what was recorded (transport failures among them), and whether the cassette
/// was replaced or added to. A failed `--record all` run never replaces the cassette: its new
/// entries are added after the old ones (nothing recorded is lost), and ``note`` says so.
///
/// ```swift
/// let outcome = try ScenarioRunner(options: .init(recordMode: .all)).run(scenario, seed: 1)
/// if let recording = outcome.recording { print(recording.note) }
/// ```
public struct RecordingReport: Codable, Hashable, Sendable {
    /// The record mode (`once`, `new_episodes`, `all`).
    public var mode: String
    /// The cassette, as the user would type its path here.
    public var cassette: String
    /// Requests answered from the cassette.
    public var replayed: Int
    /// Requests recorded from the upstream.
    public var recorded: Int
    /// Recorded transport failures (refused, timed out, ...): each replays as that failure.
    public var recordedFailures: [String]
    /// Entries the cassette had before the run.
    public var entriesBefore: Int
    /// Entries it has now (nil when writing it failed).
    public var entriesAfter: Int?
    /// True when the run replaced the cassette's entries (a passing `--record all`).
    public var replaced: Bool
    /// Why not everything recorded could be stored, if so (`tapedeck run` then exits 3).
    public var problem: String?
    /// What rewriting another tool's file as Tapedeck's HAR dropped from it, when the run did
    /// (`CassetteRecorder.foreignFileWarning`).
    public var rewrittenForeignFile: String? = nil
    /// The requests the cassette had no entry for ("no route") in a `--record once` run over a
    /// cassette that existed, which records nothing: ``note`` then suggests `new_episodes`.
    public var unrecordedMisses: [String] = []

    /// Entries the run added after the old ones (0 when it replaced them or wrote nothing).
    public var added: Int {
        guard let after = entriesAfter, !replaced else { return 0 }
        return max(0, after - entriesBefore)
    }

    /// What happened, in a sentence or three, with what to do when the result needs attention.
    public var note: String {
        var lines: [String] = []
        let failures = recordedFailures.count
        let failureNote = failures == 0 ? ""
            : failures == 1 ? " (1 recorded transport failure, which replays as a failure)"
            : " (\(failures) recorded transport failures, which replay as failures)"
        if let problem {
            lines.append("cassette \(cassette): not everything recorded could be stored: \(problem)")
        }
        if let after = entriesAfter {
            if after == entriesBefore && !replaced {
                lines.append("cassette \(cassette) (--record \(mode)): unchanged, \(Self.entries(entriesBefore)); \(replayed) request\(replayed == 1 ? "" : "s") replayed, none recorded")
            } else if replaced {
                lines.append("cassette \(cassette) (--record \(mode)): re-recorded, now \(Self.entries(after))\(failureNote) in place of the \(entriesBefore) it had")
            } else if mode == CassetteRecorder.Mode.all.rawValue && entriesBefore > 0 {
                // Numbered from 0, as `tapedeck cassette inspect` and the miss reports number them.
                let new = added == 1 ? "the new entry\(failureNote) was added after them (entry \(entriesBefore))"
                    : "the \(added) new entries\(failureNote) were added after them (entries \(entriesBefore)-\(entriesBefore + added - 1))"
                lines.append("cassette \(cassette) (--record all): the run failed, so the cassette was not replaced. "
                    + (entriesBefore == 1 ? "Its entry is kept" : "Its \(entriesBefore) entries are kept") + ", and \(new).")
                lines.append("  Replays still answer from the old entries first; a request repeated more often than they cover (a retry, a poll) "
                    + "now gets the new ones. To drop them, restore the file (e.g. git checkout -- \(Outcome.shellQuoted(cassette))); "
                    + "a --record all run that passes replaces the whole cassette.")
            } else {
                lines.append("cassette \(cassette) (--record \(mode)): \(added) new entr\(added == 1 ? "y" : "ies")\(failureNote) added, now \(after)")
            }
        }
        if let rewrittenForeignFile { lines.append("  note: " + rewrittenForeignFile) }
        if !unrecordedMisses.isEmpty {
            let count = unrecordedMisses.count
            let names = unrecordedMisses.prefix(5).joined(separator: ", ") + (count > 5 ? ", …" : "")
            lines.append("  --record once records only into a cassette that does not exist yet; this one did, so the \(count == 1 ? "request" : "\(count) requests") "
                + "it has no entry for (\(names)) found no route. To record \(count == 1 ? "it" : "them"), run with --record new_episodes")
        }
        if failures > 0 {
            lines.append("  recorded failures: " + recordedFailures.prefix(5).joined(separator: "; ") + (failures > 5 ? "; ..." : ""))
        }
        return lines.joined(separator: "\n")
    }

    /// `1 entry`, `3 entries`.
    static func entries(_ count: Int) -> String {
        count == 1 ? "1 entry" : "\(count) entries"
    }
}

extension RecordingReport {
    /// Finishes `recorder` — replacing its cassette only when the run `passed` — and reports it.
    static func finishing(_ recorder: CassetteRecorder, passed: Bool) -> RecordingReport {
        var report = RecordingReport(mode: recorder.options.mode.rawValue, cassette: OutcomeBuilder.displayPath(recorder.cassetteURL.path),
                                     replayed: 0, recorded: 0, recordedFailures: [], entriesBefore: recorder.base.interactions.count,
                                     entriesAfter: nil, replaced: false, problem: nil)
        do {
            let summary = try recorder.finish(succeeded: passed)
            report.replayed = summary.replayed
            report.recorded = summary.recorded
            report.recordedFailures = summary.recordedFailures
            report.entriesAfter = summary.written?.interactions.count ?? report.entriesBefore
            report.replaced = summary.written != nil && recorder.options.mode == .all && passed
            if summary.written != nil, report.entriesAfter != report.entriesBefore || report.replaced {
                report.rewrittenForeignFile = recorder.foreignFileWarning
            }
        } catch {
            report.problem = "\(error)"
        }
        return report
    }
}
