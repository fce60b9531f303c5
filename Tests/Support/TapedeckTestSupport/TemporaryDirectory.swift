package import Foundation

/// A fresh directory under the system's temporary directory, removed by `cleanUp()`.
package struct TemporaryDirectory {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    package func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}
