// App code written against Moya 15: only the import line differs (`import Moya` → `import TapedeckProvider`).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TapedeckProvider

/// What the screens are told when a call fails.
enum BookshelfError: Error, Equatable {
    case unauthorized
    case notFound
    case rejected(status: Int)
    case offline
    case unreadable
}

extension BookshelfError {
    init(_ error: MoyaError) {
        switch error {
        case let .statusCode(response), let .underlying(_, response?):
            switch response.statusCode {
            case 401: self = .unauthorized
            case 404: self = .notFound
            default: self = .rejected(status: response.statusCode)
            }
        case .underlying(_, nil):
            self = .offline
        case .jsonMapping, .stringMapping, .objectMapping:
            self = .unreadable
        case .encodableMapping, .requestMapping, .parameterEncoding:
            self = .rejected(status: 0)
        }
    }
}

/// The app's access to the bookshelf backend.
final class BookshelfService: Sendable {
    let provider: MoyaProvider<BookshelfAPI>
    private let search = Mutex<(any Cancellable)?>(nil)

    init(provider: MoyaProvider<BookshelfAPI> = MoyaProvider<BookshelfAPI>()) {
        self.provider = provider
    }

    /// The provider the app runs with.
    static func make(tokens: TokenStore, activity: ActivityTracker, log: @escaping @Sendable (String) -> Void) -> BookshelfService {
        let provider = MoyaProvider<BookshelfAPI>(plugins: [
            AccessTokenPlugin { _ in tokens.token },
            AppHeadersPlugin(appVersion: "3.1"),
            activity.plugin,
            makeLogger(write: log),
        ])
        return BookshelfService(provider: provider)
    }

    /// Books of a genre; a new search cancels the one before it.
    func books(genre: String?, page: Int? = nil, completion: @escaping @Sendable (Result<[Book], BookshelfError>) -> Void) {
        search.withLock { $0 }?.cancel()
        let request = provider.request(.books(genre: genre, page: page)) { result in
            completion(Self.decode(result) { try $0.map([Book].self, atKeyPath: "items") })
        }
        search.withLock { $0 = request }
    }

    func book(id: Int, completion: @escaping @Sendable (Result<Book, BookshelfError>) -> Void) {
        provider.request(.book(id: id)) { result in
            completion(Self.decode(result) { try $0.map(Book.self) })
        }
    }

    func add(_ book: NewBook, completion: @escaping @Sendable (Result<Book, BookshelfError>) -> Void) {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        provider.request(.addBook(book)) { result in
            completion(Self.decode(result) { try $0.filter(statusCode: 201).map(Book.self, using: decoder) })
        }
    }

    /// Rates, tags or moves: success is any 2xx.
    func send(_ change: BookshelfAPI, completion: @escaping @Sendable (Result<Int, BookshelfError>) -> Void) {
        provider.request(change) { result in
            completion(Self.decode(result) { $0.statusCode })
        }
    }

    /// The server's status line, read as text (`"ok"` when all is well).
    func status() async throws -> String {
        try await provider.request(.status).mapString()
    }

    /// A book, through the async bridge below.
    func bookNow(id: Int) async throws -> Book {
        try await provider.request(.book(id: id)).filterSuccessfulStatusCodes().map(Book.self)
    }

    private static func decode<T>(_ result: Result<Response, MoyaError>, _ read: (Response) throws -> T) -> Result<T, BookshelfError> {
        switch result {
        case let .success(response):
            do {
                return .success(try read(response.filterSuccessfulStatusCodes()))
            } catch let error as MoyaError {
                return .failure(BookshelfError(error))
            } catch {
                return .failure(.unreadable)
            }
        case let .failure(error):
            return .failure(BookshelfError(error))
        }
    }
}

/// The bridge Moya 15 apps add for async/await. (File-private only so that the provider tests in
/// other files keep TapedeckProvider's own `try await request(_:)`, which this one outranks.)
extension MoyaProvider {
    fileprivate func request(_ target: Target) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            self.request(target) { result in
                continuation.resume(with: result)
            }
        }
    }
}
