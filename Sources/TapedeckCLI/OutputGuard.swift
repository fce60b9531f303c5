import ArgumentParser
import Foundation
import TapedeckScenarios
#if canImport(Glibc)
import Glibc
#endif

/// Refuses an output option that names a file the scenario was read from — the scenario file,
/// its cassette, a body file — however it is spelled (another relative path, a symbolic or hard
/// link): writing the output there would destroy the input. `-` (standard output) and paths that
/// do not exist yet pass. Exit status 64 (bad usage), nothing written.
func refuseOverwritingInputs(_ outputs: [(option: String, path: String?)], of scenario: Scenario) throws {
    /// A regular file's device and inode (a terminal, /dev/null or a pipe is no input to lose).
    func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }
    let inputs = scenario.inputFiles.enumerated().compactMap { index, url in identity(url.path).map { (index, url, $0) } }
    for case let (option, path?) in outputs where path != "-" {
        guard let output = identity(path), let (index, url, _) = inputs.first(where: { $0.2 == output }) else { continue }
        let what = index == 0 && url == scenario.source ? "the scenario file itself" : "\(url.path), a file the scenario reads"
        printError("tapedeck: \(option) \(path) is \(what): writing the output there would destroy it; give the output another name")
        throw ExitCode(64)   // bad usage, as for the options ArgumentParser turns down
    }
}
