import Foundation
import TapedeckCassettes

// What `tapedeck cassette redact` and `convert` do around rewriting a file: refuse while a
// recorder holds it, and leave no temporary copy behind when a signal stops them.

/// Whether two paths name one file (through links and `..`; by name when neither exists).
func samePath(_ a: String, _ b: String) -> Bool {
    var first = stat(), second = stat()
    if stat(a, &first) == 0, stat(b, &second) == 0 { return first.st_dev == second.st_dev && first.st_ino == second.st_ino }
    return URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
}

/// For a command that rewrites a cassette: SIGINT or SIGTERM during the write deletes its
/// temporary file (a hidden copy, perhaps not redacted yet) before the process ends with the
/// signal's usual status (130, 143). The sources live as long as the process.
func removeTemporariesOnSignal() {
    let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            CassetteFile.removeTemporaryFiles()
            exit(128 + number)
        }
        source.resume()
        return source
    }
    signalSources += sources
}

/// The signal sources ``removeTemporariesOnSignal()`` made, kept alive (set once, on the main
/// thread, before the command's work).
nonisolated(unsafe) private var signalSources: [any DispatchSourceSignal] = []

/// Refuses to rewrite `path` in place while a recorder holds it: the recorder writes the file
/// again when it stops, from what it read before, and would undo the rewrite.
func refuseWhileRecording(_ path: String, what: String, elsewhere: String) throws {
    // The file a link names (a link to the held cassette is the held cassette); and a recorder's
    // own files beside it — its journal or its lock — count as the cassette they belong to.
    var target = URL(fileURLWithPath: path).resolvingSymlinksInPath()
    for suffix in [".journal", ".lock"] where target.lastPathComponent.hasSuffix(suffix) {
        target = target.deletingLastPathComponent().appendingPathComponent(String(target.lastPathComponent.dropLast(suffix.count)))
    }
    guard let pid = CassetteJournal.liveRecorder(of: target) else { return }
    printError("tapedeck: \(path): a recording is in progress\(pid > 0 ? " (pid \(pid))" : ""); it rewrites the file when it stops, which would undo "
               + "\(what) — stop it first, or \(elsewhere)")
    throw ExitStatus.otherFailure
}

/// The plain files beside `file` that its entries name as attached bodies (Playwright's
/// `content: 'attach'`), each once, in the order the file names them.
func attachedBodyFiles(of file: String) -> [String] {
    guard let json = try? CassetteFile.jsonText(of: URL(fileURLWithPath: file)) else { return [] }
    let text = String(decoding: json, as: UTF8.self)
    let directory = URL(fileURLWithPath: file).deletingLastPathComponent()
    var names: [String] = []
    for match in text.matches(of: /"_file"\s*:\s*"([^"\\\/]+)"/) {
        let name = String(match.output.1)
        if !names.contains(name), FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) { names.append(name) }
    }
    return names
}
