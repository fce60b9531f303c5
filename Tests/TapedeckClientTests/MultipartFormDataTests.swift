import Foundation
import Testing
import TapedeckClient

@Suite("Multipart forms: encoding, the derived boundary, file parts and errors")
struct MultipartFormDataTests {
    /// A fresh directory under the system's temporary directory.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("parts encode as boundary line, headers, blank line and bytes, then the closing boundary")
    func exactBytes() throws {
        let form = MultipartFormData(boundary: "XyZ")
        form.append(Data("Ada".utf8), withName: "name")
        form.append(Data([0, 1, 2]), withName: "blob", fileName: "b.bin", mimeType: "application/octet-stream")
        let expected = "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"name\"\r\n\r\n"
            + "Ada\r\n--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        var bytes = Data(expected.utf8)
        bytes.append(contentsOf: [0, 1, 2])
        bytes.append(Data("\r\n--XyZ--\r\n".utf8))
        #expect(try form.encode() == bytes)
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
        #expect(form.contentLength == 6)
    }

    @Test("without a boundary, equal forms get equal boundaries and different forms different ones")
    func derivedBoundary() throws {
        func form(_ text: String) -> MultipartFormData {
            let form = MultipartFormData()
            form.append(Data(text.utf8), withName: "field")
            return form
        }
        let first = form("one"), again = form("one"), other = form("two")
        #expect(first.boundary == again.boundary)
        #expect(first.boundary != other.boundary)
        #expect(first.boundary.hasPrefix("alamofire.boundary."))
        #expect(first.boundary.count == "alamofire.boundary.".count + 16)
        #expect(try first.encode() == again.encode())
        // Fixed at the first read: appending afterwards does not change it.
        let boundary = first.boundary
        first.append(Data("more".utf8), withName: "extra")
        #expect(first.boundary == boundary)
        #expect(first.contentType == "multipart/form-data; boundary=\(boundary)")
    }

    @Test("a file part takes its name and MIME type from the URL, and writing to a file gives the same bytes")
    func fileParts() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = directory.appendingPathComponent("photo.JPG")
        try Data(repeating: 0xAB, count: 70_000).write(to: photo)
        let form = MultipartFormData(boundary: "k")
        form.append(photo, withName: "avatar")
        let encoded = try form.encode()
        let head = "--k\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"photo.JPG\"\r\nContent-Type: image/jpeg\r\n\r\n"
        #expect(encoded.prefix(head.utf8.count) == Data(head.utf8))
        #expect(encoded.count == head.utf8.count + 70_000 + "\r\n--k--\r\n".utf8.count)
        #expect(form.contentLength == 70_000)
        let out = directory.appendingPathComponent("form.bin")
        try form.writeEncodedData(to: out)
        #expect(try Data(contentsOf: out) == encoded)
        // An existing output file is refused, and left as it was.
        #expect {
            try form.writeEncodedData(to: out)
        } throws: { error in
            guard case .multipartEncodingFailed(.outputStreamFileAlreadyExists)? = error.asClientError else { return false }
            return true
        }
        #expect(try Data(contentsOf: out) == encoded)
    }

    @Test("append errors surface at encoding: a missing file, a directory, a URL with no extension, a short stream")
    func errors() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        func reason(_ fill: (MultipartFormData) -> Void) -> ClientError.MultipartEncodingFailureReason? {
            let form = MultipartFormData(boundary: "b")
            fill(form)
            do {
                _ = try form.encode()
                return nil
            } catch let ClientError.multipartEncodingFailed(reason) {
                return reason
            } catch {
                return nil
            }
        }
        let missing = directory.appendingPathComponent("gone.png")
        guard case let .bodyPartFileNotReachable(at)? = reason({ $0.append(missing, withName: "f") }) else {
            Issue.record("a missing file should be unreachable")
            return
        }
        #expect(at == missing)
        let folder = directory.appendingPathComponent("folder.d")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard case .bodyPartFileIsDirectory? = reason({ $0.append(folder, withName: "f") }) else {
            Issue.record("a directory is not a file part")
            return
        }
        guard case .bodyPartFilenameInvalid? = reason({ $0.append(directory.appendingPathComponent("README"), withName: "f") }) else {
            Issue.record("a file name without an extension gives no MIME type")
            return
        }
        guard case .bodyPartURLInvalid? = reason({ $0.append(URL(string: "https://example.com/a.png")!, withName: "f", fileName: "a.png", mimeType: "image/png") }) else {
            Issue.record("a remote URL is not a file part")
            return
        }
        guard case let .inputStreamReadFailed(error)? = reason({ $0.append(InputStream(data: Data("abc".utf8)), withLength: 5, name: "s", fileName: "s.txt", mimeType: "text/plain") }),
              let length = error as? ClientError.UnexpectedInputStreamLength else {
            Issue.record("a stream shorter than its length is an error")
            return
        }
        #expect(length.bytesExpected == 5 && length.bytesRead == 3)
        guard case let .inputStreamReadFailed(longer)? = reason({ $0.append(InputStream(data: Data("abcdef".utf8)), withLength: 4, name: "s", fileName: "s.txt", mimeType: "text/plain") }),
              let overrun = longer as? ClientError.UnexpectedInputStreamLength else {
            Issue.record("a stream longer than its length is an error, not a part cut short")
            return
        }
        #expect(overrun.bytesExpected == 4 && overrun.bytesRead == 6)
        #expect(try MultipartFormData(boundary: "e").encode().isEmpty, "no parts, no bytes (as Alamofire)")
    }

    @Test("a file part's boundary depends on the file's name and size, not on the directory it is in")
    func boundaryIgnoresDirectory() throws {
        let first = try Self.scratch(), second = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: first); try? FileManager.default.removeItem(at: second) }
        for directory in [first, second] { try Data("same bytes".utf8).write(to: directory.appendingPathComponent("notes.txt")) }
        func boundary(_ directory: URL) -> String {
            let form = MultipartFormData()
            form.append(directory.appendingPathComponent("notes.txt"), withName: "notes")
            return form.boundary
        }
        #expect(boundary(first) == boundary(second))
    }
}
