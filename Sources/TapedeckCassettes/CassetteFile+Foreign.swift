import Foundation

// Other tools' cassettes where a HAR file is expected: read as they are for replay, refused where
// HAR would be written over them (CassetteFile.read(_:strict:foreign:)).

extension CassetteFile {
    /// What a read does with a cassette another tool wrote (one of ``ForeignCassette/Format``'s:
    /// vcrpy, VCR, Betamax, go-vcr, DVR, a Postman collection, WireMock mappings or a folder of
    /// them, a Hoverfly simulation).
    public enum ForeignFiles: Sendable {
        /// Refuse it with an error naming its format and the `tapedeck cassette import` line that
        /// converts it: what a recorder needs, since it writes HAR back over the file.
        case refuse
        /// Read its interactions, converted in memory (``Cassette/foreignFormat`` says from what):
        /// for replay, which never writes the file.
        case convert
    }

    /// What a file that failed to read as HAR (`text`, its bytes inflated) is: another tool's
    /// cassette, read when `foreign` converts it, else refused naming the import line; or, when
    /// it is no such cassette, `harError`, the HAR reader's own error.
    ///
    /// A document of no format Tapedeck reads (an Insomnia export, `package.json`) is said to be
    /// so, rather than called a damaged HAR file; an empty `.yml` or `.yaml` file is VCR's empty
    /// cassette.
    static func foreignOrNot(_ text: Data?, url: URL, strict: Bool, foreign: ForeignFiles, harError: CassetteError) -> Result<Cassette, CassetteError> {
        guard let text else { return .failure(harError) }
        let format: ForeignCassette.Format
        if text.isEmpty {
            guard ForeignCassette.isYAMLName(url.path) else { return .failure(harError) }
            format = .vcr
        } else {
            switch ForeignCassette.classifyAfterHARFailed(text) {
            case let .format(found): format = found
            case let .otherDocument(root): return .failure(root["log"] != nil ? harError : notACassette(url, root: root))
            case .unparsed: return .failure(harError)
            }
        }
        guard foreign == .convert else { return .failure(refusal(of: url, format: format)) }
        do throws(CassetteError) {
            // Read for replay: stubs matching by pattern are kept (HAR could not hold them).
            return .success(try converted(ForeignCassette.load(text, file: url.path, format: format, keepingPatterns: true), strict: strict))
        } catch {
            return .failure(error)
        }
    }

    /// The error for a JSON or YAML document at `url` that is neither HAR nor another tool's cassette.
    static func notACassette(_ url: URL, root: ForeignNode) -> CassetteError {
        CassetteError(.json, file: url.path, reason: "this is neither a HAR file (no 'log') nor a cassette of another tool Tapedeck reads "
                      + "(vcrpy, VCR, Betamax, go-vcr, DVR, ExVCR, a nock recording, a Postman collection, WireMock mappings, a Hoverfly simulation)",
                      hint: ForeignCassette.lookalike(root) ?? "give a HAR file (.har, .har.gz) or one of those cassettes; `tapedeck cassette import --help` lists them")
    }

    /// The refusal of another tool's file where HAR would be written over it.
    static func refusal(of url: URL, format: ForeignCassette.Format) -> CassetteError {
        CassetteError(.json, file: url.path, reason: "this is \(format.fileNoun), not a HAR file; Tapedeck replays it as it is but records only into HAR",
                      hint: "convert it once: tapedeck cassette import \(url.path) \(importedName(of: url))")
    }

    /// The cassette of another tool's file as read, its format and remarks kept; with `strict`,
    /// its first entry that cannot be read is an error.
    static func converted(_ reading: ForeignCassette.Reading, strict: Bool) throws(CassetteError) -> Cassette {
        var cassette = reading.cassette
        if strict, let first = cassette.skipped.first { throw first.error }
        cassette.foreignFormat = reading.format
        cassette.remarks = reading.remarks
        return cassette
    }

    /// The `.har.gz` name `tapedeck cassette import` suggests for another tool's cassette at `url`:
    /// its name with the extension replaced, beside it.
    static func importedName(of url: URL) -> String {
        var name = url.lastPathComponent
        for suffix in [".gz", ".zz", ".yaml", ".yml", ".json"] where name.lowercased().hasSuffix(suffix) {
            name.removeLast(suffix.count)
        }
        return url.deletingLastPathComponent().appendingPathComponent(name + ".har.gz").path
    }
}
