// App code as a Swift 5 project that uses Alamofire writes it: completion handlers, mutable
// state captured by response handlers, `Error` without `any`, no Sendable annotations anywhere.
// Only the import line differs from the Alamofire original.
import Foundation
import TapedeckClient

struct Headline: Decodable, Equatable {
    let id: Int
    let title: String
}

/// A service with a cache and an error log that its response handlers write to.
final class NewsService {
    private let session: Session
    private(set) var cache: [Int: Headline] = [:]
    private(set) var failures: [Error] = []
    var token: String?

    init(session: Session = AF) {
        self.session = session
    }

    func headline(id: Int, completion: @escaping (Result<Headline, Error>) -> Void) {
        var headers: HTTPHeaders = [.accept("application/json")]
        if let token = token { headers.add(.authorization(bearerToken: token)) }
        session.request("https://news.example.com/headlines/\(id)", headers: headers)
            .validate(statusCode: 200..<300)
            .responseDecodable(of: Headline.self) { response in
                switch response.result {
                case .success(let headline):
                    self.cache[id] = headline
                    completion(.success(headline))
                case .failure(let error):
                    self.failures.append(error)
                    completion(.failure(error))
                }
            }
    }

    /// Several requests, one callback: a counter and an array the handlers share.
    func titles(of ids: [Int], completion: @escaping ([String]) -> Void) {
        var titles: [String] = []
        var remaining = ids.count
        for id in ids {
            session.request("https://news.example.com/headlines/\(id)").responseDecodable(of: Headline.self) { response in
                if let headline = response.value { titles.append(headline.title) }
                remaining -= 1
                if remaining == 0 { completion(titles.sorted()) }
            }
        }
    }

    /// The pre-Decodable way: `responseJSON` and casts to Foundation collections.
    func headlineIDs(completion: @escaping ([Int]) -> Void) {
        session.request("https://news.example.com/headlines").responseJSON { response in
            switch response.result {
            case .success(let value):
                let items = value as? [[String: Any]] ?? []
                completion(items.compactMap { $0["id"] as? Int })
            case .failure:
                completion([])
            }
        }
    }

    /// A custom validation that counts what it saw, and the cURL line for a log.
    func status(of path: String, log: @escaping (String) -> Void, completion: @escaping (Int?, Int) -> Void) {
        var validations = 0
        session.request("https://news.example.com\(path)")
            .cURLDescription { line in log(line) }
            .validate { _, response, _ in
                validations += 1
                return response.statusCode == 418 ? .failure(AFError.responseValidationFailed(reason: .unacceptableStatusCode(code: 418))) : .success(())
            }
            .response { response in completion(response.response?.statusCode, validations) }
    }
}

/// An interceptor with mutable state, written before Sendable existed.
final class RenewingTokenInterceptor: RequestInterceptor {
    var token = "expired"
    var adaptations = 0

    func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping (Result<URLRequest, Error>) -> Void) {
        var request = urlRequest
        request.headers.add(.authorization(bearerToken: token))
        adaptations += 1
        completion(.success(request))
    }

    func retry(_ request: Request, for session: Session, dueTo error: Error, completion: @escaping (RetryResult) -> Void) {
        guard request.response?.statusCode == 401, request.retryCount == 0 else {
            completion(.doNotRetry)
            return
        }
        token = "fresh"
        completion(.retry)
    }
}

/// A view model on the main actor whose handlers update its state (they run on `.main`).
@MainActor
final class HeadlinesViewModel {
    private(set) var titles: [String] = []
    private(set) var isLoading = false
    private(set) var errorText: String?
    private let session: Session

    init(session: Session) {
        self.session = session
    }

    func refresh() {
        isLoading = true
        session.request("https://news.example.com/headlines")
            .validate()
            .responseDecodable(of: [Headline].self, queue: .main) { response in
                self.isLoading = false
                switch response.result {
                case .success(let headlines): self.titles = headlines.map(\.title)
                case .failure(let error): self.errorText = error.localizedDescription
                }
            }
    }
}

/// A delegate subclass as apps write it for Alamofire (client certificates, a custom file manager).
final class PinningSessionDelegate: SessionDelegate {
    var challenges = 0

    init() {
        super.init(fileManager: .default)
    }

    override func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                             completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        challenges += 1
        completionHandler(.performDefaultHandling, nil)
    }
}

struct PhotoReceipt: Decodable, Equatable {
    let id: Int
    let bytes: Int
}

/// A photo upload as apps write it for Alamofire: a multipart form, progress on the main queue
/// written into the uploader's state, a Decodable receipt.
final class PhotoUploader {
    private let session: Session
    private(set) var fraction: Double = 0
    private(set) var receipts: [PhotoReceipt] = []

    init(session: Session = AF) {
        self.session = session
    }

    func upload(_ jpeg: Data, caption: String, completion: @escaping (Result<PhotoReceipt, AFError>) -> Void) {
        session.upload(multipartFormData: { multipartFormData in
            multipartFormData.append(Data(caption.utf8), withName: "caption")
            multipartFormData.append(jpeg, withName: "photo", fileName: "photo.jpg", mimeType: "image/jpeg")
        }, to: "https://news.example.com/photos", method: .post)
        .uploadProgress(queue: .main) { progress in
            self.fraction = progress.fractionCompleted
        }
        .validate()
        .responseDecodable(of: PhotoReceipt.self) { response in
            if let receipt = response.value { self.receipts.append(receipt) }
            completion(response.result)
        }
    }
}
