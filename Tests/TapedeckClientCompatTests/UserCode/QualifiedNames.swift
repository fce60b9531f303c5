// User code written against Alamofire 5 that names Alamofire's types through the module, as apps
// do where they have a type of the same name (openedx's own `RequestInterceptor`, SplatNet3's own
// `Session`): only the `import` line differs (`import Alamofire`).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckClient

/// The app's own type, named like Alamofire's: the app writes `Alamofire.RequestInterceptor` for
/// the library's (file-private here, so that the suite's other files keep the library's name).
fileprivate protocol RequestInterceptor {
    var appName: String { get }
}

/// A bearer-token adapter conforming to the library's protocol through the module's name.
final class QualifiedTokenAdapter: Alamofire.RequestInterceptor, @unchecked Sendable {
    let token: String
    init(token: String) { self.token = token }

    func adapt(_ urlRequest: URLRequest, for session: Alamofire.Session,
               completion: @escaping (Result<URLRequest, any Error>) -> Void) {
        var request = urlRequest
        request.headers.add(.authorization(bearerToken: token))
        completion(.success(request))
    }
}

/// An API client holding a module-qualified session, reading its configuration as Drrrible does.
final class QualifiedClient: @unchecked Sendable {
    let session: Alamofire.Session
    let timeout: TimeInterval

    init(token: String) {
        session = Alamofire.Session(interceptor: QualifiedTokenAdapter(token: token))
        timeout = session.sessionConfiguration.timeoutIntervalForRequest
    }

    func profile(_ done: @escaping @Sendable (Alamofire.AFDataResponse<String>) -> Void) {
        let method: Alamofire.HTTPMethod = .get
        session.request("https://api.example.com/me", method: method).validate().responseString(completionHandler: done)
    }
}

/// Forwards what its URLSession delegate hears to an optional monitor, as openHAB's session
/// delegate does: the calls compile because the monitor protocol requires them.
final class MonitorForwarder: @unchecked Sendable {
    let monitor: (any Alamofire.EventMonitor)?
    init(monitor: (any Alamofire.EventMonitor)?) { self.monitor = monitor }

    func forward(_ session: URLSession, _ task: URLSessionTask, _ challenge: URLAuthenticationChallenge) {
        monitor?.urlSession(session, task: task, didReceive: challenge)
        monitor?.urlSession(session, taskIsWaitingForConnectivity: task)
    }
}

/// A downloader written as NextcloudKit writes one: the destination typed through the module's
/// name, `DispatchQueue`s for the handlers, progress and the response as `AFDownloadResponse`.
final class QualifiedDownloader: @unchecked Sendable {
    let session: Alamofire.Session
    private(set) var fraction: Double = 0

    init(session: Alamofire.Session) {
        self.session = session
    }

    func download(_ url: URL, to fileURL: URL, done: @escaping @Sendable (Alamofire.AFDownloadResponse<Data>) -> Void) {
        let destination: Alamofire.DownloadRequest.Destination = { _, _ in (fileURL, [.removePreviousFile, .createIntermediateDirectories]) }
        session.download(url, to: destination)
            .downloadProgress(queue: .main) { progress in self.fraction = progress.fractionCompleted }
            .validate()
            .responseData(queue: .main, completionHandler: done)
    }
}
