import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Upload tasks' bodies. On swift-corelibs-foundation, `uploadTask(with:from:)`,
// `uploadTask(with:fromFile:)` and async `upload(for:from:)` keep the body inside the task, out of
// the request a URLProtocol is given, so a recording sent the live server an empty body and stored
// one. The task keeps it in a stored property (`knownBody`: `.data(DispatchData)` or
// `.file(URL)`), which reflection can read; Apple's Foundation hands a protocol the body in the
// request's stream instead.
extension Harness {
    /// The body an upload task carries, read from the task itself; nil for any other task, a
    /// body given as a stream, or a Foundation whose task keeps it elsewhere.
    static func uploadBody(of task: URLSessionTask) -> Data? {
        guard task is URLSessionUploadTask else { return nil }
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let stored = current.children.first(where: { $0.label == "knownBody" })?.value {
                // Optional<_Body>: its one child is the body; the body's one child is its payload.
                guard let body = Mirror(reflecting: stored).children.first?.value,
                      let payload = Mirror(reflecting: body).children.first?.value else { return nil }
                if let data = payload as? DispatchData { return Data(data) }
                if let file = payload as? URL { return try? Data(contentsOf: file) }
                return nil
            }
            mirror = current.superclassMirror
        }
        return nil
    }
}
