public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Where an output path really leads. A file is replaced atomically (a temporary sibling renamed
// over it); a device, a pipe or an open descriptor of this process must be written into instead:
// renaming over `/dev/stdout` would put a plain file where the link was (or, through
// `/proc/self/fd/1`, over the file the shell redirected standard output to, dropping what it held).

extension CassetteFile {
    /// What an output path names once its links are followed.
    ///
    /// ```swift
    /// switch CassetteFile.outputTarget("/dev/stdout") {
    /// case .descriptor(let fd): print("write to descriptor \(fd)")   // 1
    /// case .device(let path): print("write into \(path)")
    /// case .file(let path): print("replace \(path) atomically")
    /// }
    /// ```
    public enum OutputTarget: Equatable, Sendable {
        /// One of this process's open descriptors (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
        /// `/proc/self/fd/N`): written at its current position, never reopened or renamed over.
        case descriptor(Int32)
        /// Something that exists and is no regular file or directory (`/dev/null`, `/dev/full`, a
        /// named pipe, a terminal): opened and written into.
        case device(String)
        /// A regular file, a directory, or nothing yet, at this path with every link followed
        /// (a dangling link names the file it would create): replaced or created atomically.
        case file(String)
    }

    /// Where `path` leads: its links followed one by one (as the kernel would when opening it,
    /// even to a target that does not exist yet).
    public static func outputTarget(_ path: String) -> OutputTarget {
        if let descriptor = descriptorNamed(path) { return .descriptor(descriptor) }
        let resolved = followingLinks(path)
        if let descriptor = descriptorNamed(resolved) { return .descriptor(descriptor) }
        return isStream(resolved) ? .device(resolved) : .file(resolved)
    }

    /// Whether `path` (its links followed) is something that exists and is neither a regular file
    /// nor a directory: a named pipe, a device, a socket — read once as a stream, never rewritten.
    ///
    /// ```swift
    /// CassetteFile.isStream("/dev/fd/63")   // true for `<(zcat old.har.gz)`
    /// ```
    public static func isStream(_ path: String) -> Bool {
        var kind = stat()
        guard stat(path, &kind) == 0 else { return false }
        return kind.st_mode & S_IFMT != S_IFREG && kind.st_mode & S_IFMT != S_IFDIR
    }

    /// The descriptor a `/dev/stdout`-like path stands for, if it is one of this process's.
    private static func descriptorNamed(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return 0
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/"] where path.hasPrefix(prefix) {
                guard let number = Int32(path.dropFirst(prefix.count)), fcntl(number, F_GETFD) != -1 else { return nil }
                return number
            }
            return nil
        }
    }

    /// `path` absolute, with each symbolic link in it replaced by what it points at (relative
    /// targets read from the link's directory), up to 40 links (then as it stands); unlike
    /// `resolvingSymlinksInPath()`, a link to a file that does not exist yet is followed too.
    static func followingLinks(_ path: String) -> String {
        var pending = (path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
            .split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var done: [String] = []
        var links = 0
        while !pending.isEmpty {
            let part = pending.removeFirst()
            if part == "." { continue }
            if part == ".." {
                if !done.isEmpty { done.removeLast() }
                continue
            }
            let current = "/" + (done + [part]).joined(separator: "/")
            // /proc/self/fd/N links to what the descriptor holds ("pipe:[…]" too): stop there.
            if descriptorNamed(current) != nil, pending.isEmpty { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, Int(PATH_MAX))
            guard count > 0, links < 40 else {
                done.append(part)
                continue
            }
            links += 1
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") { done = [] }
            pending = target.split(separator: "/", omittingEmptySubsequences: true).map(String.init) + pending
        }
        return "/" + done.joined(separator: "/")
    }

    /// An output written piece by piece (JSON lines as they come), opened where
    /// ``outputTarget(_:)`` says: a descriptor of this process at its position, a device written
    /// into, a file (links followed) created or emptied. Not atomic: a reader may see the lines
    /// so far, which is what a stream of lines is for.
    ///
    /// ```swift
    /// let out = try CassetteFile.Output(path: "seeds.jsonl")
    /// try out.write(Data("{\"seed\":1}\n".utf8))
    /// out.close()
    /// ```
    public final class Output {
        private let descriptor: Int32
        private let owned: Bool
        /// The path as given, for errors.
        public let path: String

        /// Opens `path` for writing (see ``CassetteFile/Output``).
        public init(path: String) throws(CassetteError) {
            self.path = path
            switch outputTarget(path) {
            case .descriptor(let descriptor):
                self.descriptor = descriptor
                owned = false
            case .device(let device):
                descriptor = open(device, O_WRONLY | O_CLOEXEC)
                owned = true
            case .file(let file):
                descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                owned = true
            }
            guard descriptor >= 0 else { throw ioError(path, "cannot open it for writing") }
        }

        /// Writes all of `data` (an error such as a full disk is thrown, not dropped).
        public func write(_ data: Data) throws(CassetteError) {
            try writeAll(descriptor, data, path: path)
        }

        /// Closes what this opened (a descriptor of the process's own, such as standard output,
        /// stays open).
        public func close() {
            #if canImport(Glibc)
            if owned { _ = Glibc.close(descriptor) }
            #else
            if owned { _ = Darwin.close(descriptor) }
            #endif
        }
    }
}
