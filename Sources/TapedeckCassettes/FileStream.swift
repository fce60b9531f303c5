package import Foundation

/// Reading a file as a stream — a regular file, a named pipe, a device — with a size limit, so an
/// endless source (`/dev/zero`) is refused instead of read until memory runs out, and a device
/// corelibs' `Data(contentsOf:)` turns down (`/dev/null`) reads as what it gives.
package enum FileStream {
    /// The file could not be opened for reading (its permissions, most often).
    package struct CannotOpen: Error {}

    /// The bytes at `path`, or nil when more than `limit` arrived. Throws ``CannotOpen``, or the
    /// read's own error.
    package static func read(atPath path: String, limit: Int) throws -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CannotOpen() }
        defer { try? handle.close() }
        var data = Data()
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            data.append(piece)
            if data.count > limit { return nil }
        }
        return data
    }
}
