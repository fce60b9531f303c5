import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckNetwork
import TapedeckProvider
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app code in MoyaApp/ — written as against Moya 15, its import line changed — run on the
/// simulated network: its providers are made the Moya way (no session given), so they send through
/// the world bound as TapedeckClient's default transport.
@Suite("Provider: Moya 15 app code, unchanged but for the import")
struct MoyaAppCodeTests {
    /// The bookshelf and reviews backends, recording what they receive.
    final class Backend: Sendable {
        let world = World()
        let received = Box<[RequestSnapshot]>([])

        init() {
            serve("/v2/books/404") { _ in .json(404, #"{"message":"no such book"}"#) }
            serve("/v2/books/1/rating") { _ in ResponsePlan(status: 204) }
            serve("/v2/books/*") { request in
                let id = request.url.lastPathComponent
                return .json(200, #"{"id":\#(id),"title":"Book \#(id)","author":"A"}"#)
            }
            serve("/v2/books") { request in
                if request.method == .post {
                    return ResponsePlan(status: 201, headers: [("Content-Type", "application/json")],
                                        body: Data(#"{"id":9,"title":"Dune","author":"Herbert"}"#.utf8))
                }
                return .json(200, #"{"items":[{"id":1,"title":"Dune","author":"Herbert"},{"id":2,"title":"Emma","author":"Austen"}]}"#)
            }
            serve("/v2/tags") { _ in .json(200, #"{"error":"read-only account"}"#) }
            serve("/v2/shelves/move") { _ in ResponsePlan(status: 204) }
            serve("/v2/status") { _ in ResponsePlan(status: 200, headers: [("Content-Type", "text/plain")], body: Data("ok".utf8)) }
            world.network.route(host: "reviews.shelf.test", path: "/books/*", options: RouteOptions(latency: .fixed(.milliseconds(30)))) {
                [received] request, _ in
                received.mutate { $0.append(request) }
                return .response(.json(200, #"["gripping"]"#))
            }
        }

        private func serve(_ path: String, _ answer: @escaping @Sendable (RequestSnapshot) -> ResponsePlan) {
            world.network.route(host: "api.shelf.test", path: path, options: RouteOptions(latency: .fixed(.milliseconds(50)))) {
                [received] request, _ in
                received.mutate { $0.append(request) }
                return .response(answer(request))
            }
        }

        /// The value of the header field `name` in `request`.
        func field(_ name: String, of request: RequestSnapshot) -> String? {
            request.headerFields.first { $0.name.rawName.lowercased() == name.lowercased() }?.value
        }

        /// What the backend received for `path`: `METHOD path?query body [Authorization]`.
        func seen(_ path: String) -> [String] {
            received.value.filter { $0.url.path == path }.map { request in
                let query = request.url.query.map { "?" + $0 } ?? ""
                let body = request.body.map { " " + String(decoding: $0, as: UTF8.self) } ?? ""
                return "\(request.method.rawValue) \(request.url.path)\(query)\(body) [\(request.headerFields[.authorization] ?? "-")]"
            }
        }
    }

    @Test("listing books: query from a [String: Any] (nil values dropped, URLEncoding.queryString), bearer token, app header, logger, activity")
    func listing() throws {
        let backend = Backend()
        let tokens = TokenStore(token: "t-1")
        let activity = ActivityTracker()
        let lines = Box<[String]>([])
        let service = backend.world.withTransport {
            BookshelfService.make(tokens: tokens, activity: activity, log: { line in lines.mutate { $0.append(line) } })
        }
        let books = Box<Result<[Book], BookshelfError>?>(nil)
        service.books(genre: "sf") { books.value = $0 }
        try backend.world.run()
        #expect(try books.value?.get().map(\.title) == ["Dune", "Emma"])
        #expect(backend.seen("/v2/books") == ["GET /v2/books?genre=sf&sort=title [Bearer t-1]"])
        #expect(backend.received.value.first.flatMap { backend.field("X-App-Version", of: $0) } == "3.1")
        #expect(activity.peak == 1 && activity.inFlight == 0)
        #expect(lines.value.first == "[/books] Request: https://api.shelf.test/v2/books?genre=sf&sort=title")
        #expect(lines.value.contains("[/books] HTTP Request Method: GET"))
        #expect(lines.value.last?.hasPrefix(#"[/books] Response Body: {"items":[{"author":"Herbert","id":1"#) == true,
                "the app's formatter re-serialised the body with sorted keys")
    }

    @Test("a new search cancels the one in flight: the first completes once, cancelled; the second with the books")
    func searchCancelsThePrevious() throws {
        let backend = Backend()
        let service = backend.world.withTransport { BookshelfService() }
        let results = Box<[String]>([])
        service.books(genre: "sf") { result in results.mutate { $0.append("sf \(result.map(\.count))") } }
        service.books(genre: "crime") { result in results.mutate { $0.append("crime \(result.map(\.count))") } }
        try backend.world.run()
        #expect(results.value == ["sf failure(TapedeckProviderTests.BookshelfError.offline)", "crime success(2)"],
                "a cancelled Moya request arrives as .underlying(error, nil), which the app calls offline")
        #expect(backend.seen("/v2/books") == ["GET /v2/books?genre=crime&sort=title [-]"])
    }

    @Test("bodies: JSONEncodable, JSONEncoding.default, an Alamofire-style custom encoding, composite parameters; a 200 the app's plugin rejects")
    func bodies() throws {
        let backend = Backend()
        let service = backend.world.withTransport { BookshelfService(provider: AppProvider<BookshelfAPI>()) }
        let outcomes = Box<[String: String]>([:])
        service.add(NewBook(title: "Dune", author: "Herbert", isbn: nil)) { result in
            outcomes.mutate { $0["add"] = "\(result.map(\.id))" }
        }
        service.send(.rate(bookID: 1, stars: 5)) { result in outcomes.mutate { $0["rate"] = "\(result)" } }
        service.send(.tag(bookIDs: [3, 1])) { result in outcomes.mutate { $0["tag"] = "\(result)" } }
        service.send(.move(bookIDs: [1, 2], toShelf: "read")) { result in outcomes.mutate { $0["move"] = "\(result)" } }
        try backend.world.run()
        #expect(outcomes.value["add"] == "success(9)")
        #expect(backend.seen("/v2/books") == [#"POST /v2/books {"author":"Herbert","title":"Dune"} [-]"#])
        #expect(backend.seen("/v2/books/1/rating") == [#"PUT /v2/books/1/rating {"stars":5} [-]"#])
        #expect(outcomes.value["rate"] == "success(204)")
        #expect(backend.seen("/v2/tags") == ["POST /v2/tags [3,1] [-]"])
        #expect(outcomes.value["tag"] == "failure(TapedeckProviderTests.BookshelfError.rejected(status: 200))",
                "AppHeadersPlugin.process turned the {\"error\"} body into a status-code failure")
        #expect(backend.seen("/v2/shelves/move") == [#"PUT /v2/shelves/move?shelf=read {"ids":[1,2]} [-]"#])
        #expect(outcomes.value["move"] == "success(204)")
    }

    @Test("errors: a 404 on a .successCodes target is MoyaError.underlying with the response, which the app maps to notFound")
    func notFound() throws {
        let backend = Backend()
        let service = backend.world.withTransport { BookshelfService() }
        let result = Box<Result<Book, BookshelfError>?>(nil)
        service.book(id: 404) { result.value = $0 }
        let unchecked = Box<Result<Response, MoyaError>?>(nil)
        service.provider.request(.book(id: 404)) { unchecked.value = $0 }
        try backend.world.run()
        #expect(result.value == .failure(.notFound))
        guard case let .failure(.underlying(_, response?))? = unchecked.value else {
            Issue.record("expected .underlying with a response, got \(String(describing: unchecked.value))")
            return
        }
        #expect(response.statusCode == 404)
        #expect(try response.mapString(atKeyPath: "message") == "no such book")
    }

    @Test("stubbed providers as unit tests make them: an endpoint closure's sample answers at once, the targets' own samples after 2 virtual seconds")
    func stubbedProviders() throws {
        let backend = Backend()
        let unauthorized = BookshelfService(provider: backend.world.withTransport { StubbedProviders.answering(401, "{}") })
        let slow = BookshelfService(provider: backend.world.withTransport { StubbedProviders.slow })
        let answers = Box<[String]>([])
        unauthorized.book(id: 1) { result in answers.mutate { $0.append("401 \(result) at \(backend.world.scheduler.now)") } }
        slow.books(genre: nil) { result in
            answers.mutate { $0.append("slow \((try? result.get())?.map(\.title) ?? []) at \(backend.world.scheduler.now)") }
        }
        try backend.world.run()
        #expect(answers.value == [
            "401 failure(TapedeckProviderTests.BookshelfError.unauthorized) at \(VirtualInstant.zero)",
            "slow [\"Stub\"] at \(seconds(2))",
        ])
        #expect(backend.received.value.isEmpty)
    }

    @Test("one MultiTarget provider for two backends, each with its own token scheme, through the app's Completion-typed protocol")
    func multiTarget() throws {
        let backend = Backend()
        let networking: any Networking = backend.world.withTransport { NetworkManager(bookshelfToken: "bk", reviewsKey: "rk") }
        let bodies = Box<[String]>([])
        networking.request(MultiTarget(BookshelfAPI.book(id: 3))) { result in
            bodies.mutate { $0.append((try? result.get().mapString()) ?? "failed") }
        }
        networking.request(.target(ReviewsAPI.reviews(bookID: 3))) { result in
            bodies.mutate { $0.append(((try? result.get().mapJSON()) as? [String])?.joined() ?? "failed") }
        }
        try backend.world.run()
        #expect(bodies.value == ["gripping", #"{"id":3,"title":"Book 3","author":"A"}"#], "reviews answer sooner (30 ms against 50)")
        #expect(backend.seen("/v2/books/3") == ["GET /v2/books/3 [Bearer bk]"])
        #expect(backend.seen("/books/3/reviews") == ["GET /books/3/reviews [Key rk]"])
    }

    @Test("subclasses: AppProvider bakes in the app's plugin (stubbed or not); the OfflineProvider double answers every call itself")
    func subclasses() throws {
        let backend = Backend()
        let live = backend.world.withTransport { AppProvider<BookshelfAPI>() }
        let preview = backend.world.withTransport { AppProvider<BookshelfAPI>(stubbed: true) }
        let titles = Box<[String]>([])
        live.request(.book(id: 5)) { result in titles.mutate { $0.append("live \((try? result.get().map(Book.self))?.title ?? "-")") } }
        preview.request(.book(id: 5)) { result in titles.mutate { $0.append("preview \((try? result.get().map(Book.self))?.title ?? "-")") } }
        try backend.world.run()
        #expect(titles.value.sorted() == ["live Book 5", "preview Stub"])
        #expect(backend.received.value.map { backend.field("X-App-Version", of: $0) } == ["3.1"])

        let offline = BookshelfService(provider: backend.world.withTransport { OfflineProvider<BookshelfAPI>() })
        let result = Box<Result<Book, BookshelfError>?>(nil)
        offline.book(id: 1) { result.value = $0 }
        #expect(result.value == .failure(.offline), "the double answers synchronously, without the scheduler")
    }

    @Test("the app's own async bridge (it wins over TapedeckProvider's async request) on an immediately stubbed provider, on live queues")
    func asyncBridge() async throws {
        let service = BookshelfService(provider: MoyaProvider<BookshelfAPI>(stubClosure: MoyaProvider.immediatelyStub))
        #expect(service.provider.session.scheduler is LiveScheduler, "no transport bound: Moya's default session is a live one")
        #expect(try await service.bookNow(id: 8) == Book(id: 8, title: "Stub", author: "Sample"))
        #expect(try await service.status() == "", ".status has no sample data")
    }

    @Test("Moya's everyday spellings: a bare Task, MoyaProvider.RequestResultClosure, MoyaError's errorCode and errorUserInfo")
    func moyaSpellings() throws {
        let world = World()
        let received = Box<[RequestSnapshot]>([])
        world.network.route(host: "status.example.com", path: "/status") { [received] request, _ in
            received.mutate { $0.append(request) }
            return .response(ResponsePlan(status: 503, body: Data("down".utf8)))
        }
        let provider = world.withTransport { MoyaProvider<StatusAPI>(requestClosure: stampRequest) }
        let result = Box<Result<Response, MoyaError>?>(nil)
        provider.request(.status(verbose: true)) { result.value = $0 }
        try world.run()
        let request = try #require(received.value.first)
        #expect(request.url.query == "verbose=1")
        #expect(request.headerFields.first { $0.name.rawName == "X-Client" }?.value == "status-app")
        #expect(try result.value?.get().statusCode == 503, "no validation: the 503 is a response")

        let statusError: MoyaError = .statusCode(Response(statusCode: 503, data: Data("down".utf8)))
        #expect(failureSummary(statusError).hasPrefix("\(statusError.errorCode): "))
        let bridged = statusError as NSError
        #expect(bridged.code == 5 && statusError.errorCode == 5, "Moya's numbering, imageMapping counted")
        #expect(bridged.localizedDescription == statusError.errorDescription)
        #expect(MoyaError.underlying(URLError(.timedOut), nil).errorCode == 6 && MoyaError.jsonMapping(Response(statusCode: 200, data: Data())).errorCode == 1)
        #expect(statusError.errorUserInfo[NSLocalizedDescriptionKey] as? String == statusError.errorDescription)
        let timedOut = MoyaError.underlying(URLError(.timedOut), nil)
        #expect((timedOut.errorUserInfo[NSUnderlyingErrorKey] as? URLError)?.code == .timedOut)
        #expect(failureSummary(timedOut).contains("timed out") || failureSummary(timedOut).contains("-1001"), "\(failureSummary(timedOut))")
    }
}
