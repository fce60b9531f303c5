// App code written against Moya 15, as an app team writes it: only the import line differs
// (`import Moya` → `import TapedeckProvider`). MoyaAppCodeTests runs it on the simulated network.
// (Across MoyaApp/, protocol types are written `any P` because this package enables ExistentialAny,
// and app classes are Swift 6-clean; docs/provider.md says what Swift 5-mode code may keep.)
import Foundation
import TapedeckProvider

struct Book: Codable, Equatable, Sendable {
    let id: Int
    let title: String
    let author: String
}

struct NewBook: Encodable, Sendable {
    let title: String
    let author: String
    let isbn: String?
}

/// The bookshelf backend.
enum BookshelfAPI {
    case books(genre: String?, page: Int?)
    case book(id: Int)
    case addBook(NewBook)
    case rate(bookID: Int, stars: Int)
    case tag(bookIDs: [Int])
    case move(bookIDs: [Int], toShelf: String)
    case status
}

extension BookshelfAPI: TargetType {
    var baseURL: URL { URL(string: "https://api.shelf.test/v2")! }

    var path: String {
        switch self {
        case .books, .addBook: return "/books"
        case let .book(id): return "/books/\(id)"
        case let .rate(bookID, _): return "/books/\(bookID)/rating"
        case .tag: return "/tags"
        case .move: return "/shelves/move"
        case .status: return "/status"
        }
    }

    var method: Moya.Method {
        switch self {
        case .books, .book, .status: return .get
        case .addBook, .tag: return .post
        case .rate, .move: return .put
        }
    }

    var task: Moya.Task {
        switch self {
        case let .books(genre, page):
            var parameters: [String: Any] = ["sort": "title"]
            parameters["genre"] = genre
            parameters["page"] = page
            return .requestParameters(parameters: parameters, encoding: URLEncoding.queryString)
        case .book, .status:
            return .requestPlain
        case let .addBook(book):
            return .requestJSONEncodable(book)
        case let .rate(_, stars):
            return .requestParameters(parameters: ["stars": stars], encoding: JSONEncoding.default)
        case let .tag(bookIDs):
            return .requestParameters(parameters: ["jsonArray": bookIDs], encoding: JSONArrayEncoding.default)
        case let .move(bookIDs, shelf):
            return .requestCompositeParameters(bodyParameters: ["ids": bookIDs], bodyEncoding: JSONEncoding.default,
                                               urlParameters: ["shelf": shelf])
        }
    }

    var headers: [String: String]? {
        ["Accept": "application/json"]
    }

    var sampleData: Data {
        switch self {
        case .books:
            return Data(#"{"items": [{"id": 1, "title": "Stub", "author": "Sample"}]}"#.utf8)
        case let .book(id):
            return Data(#"{"id": \#(id), "title": "Stub", "author": "Sample"}"#.utf8)
        default:
            return Data()
        }
    }

    var validationType: ValidationType {
        switch self {
        case .status: return .none
        default: return .successCodes
        }
    }
}

extension BookshelfAPI: AccessTokenAuthorizable {
    var authorizationType: AuthorizationType? {
        switch self {
        case .status: return nil
        default: return .bearer
        }
    }
}

/// The reviews service: a second backend behind the same MultiTarget provider.
enum ReviewsAPI: TargetType, AccessTokenAuthorizable {
    case reviews(bookID: Int)

    var baseURL: URL { URL(string: "https://reviews.shelf.test")! }
    var path: String {
        switch self {
        case let .reviews(bookID): return "/books/\(bookID)/reviews"
        }
    }
    var method: Moya.Method { .get }
    var task: Moya.Task { .requestPlain }
    var headers: [String: String]? { nil }
    var authorizationType: AuthorizationType? { .custom("Key") }
}
