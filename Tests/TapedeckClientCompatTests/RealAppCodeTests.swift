import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP

/// The app code of UserCode/RouterPattern.swift, AsyncAwaitLayer.swift, RefreshingInterceptor.swift,
/// CustomSerializers.swift, FormsAndHeaders.swift and MoreIdioms.swift (network layers as apps write
/// them with Alamofire 5) on the simulated network.
@Suite("Compat: network layers from apps")
struct RealAppCodeTests {
    private func text(_ data: Data?) -> String? {
        data.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("a URLRequestConvertible router: URLEncoding without brackets and with literal booleans, a JSON body, AFError mapped to the app's error")
    func router() throws {
        // Given notes that exist, and one that does not
        let backend = SimulatedBackend()
        backend.serve(path: "/v1/notes") { request in
            request.method == .post ? .json(201, #"{"id":3,"title":"new"}"#) : .json(200, #"[{"id":1,"title":"a"}]"#)
        }
        backend.serve(path: "/v1/notes/*") { _ in .json(404, #"{"error":"gone"}"#) }
        let client = backend.withTransport { NotesClient(session: Session()) }
        let listed = Box<Result<[Note], NotesError>?>(nil)
        let missing = Box<Result<Note, NotesError>?>(nil)
        let created = Box<Result<Note, NotesError>?>(nil)

        // When the app lists, fetches and creates
        client.notes(page: 2) { listed.value = $0 }
        client.note(id: 9) { missing.value = $0 }
        client.create(title: "new") { created.value = $0 }
        try backend.run()

        // Then the query and body are Alamofire's, and a 404 is the app's notFound
        #expect(try listed.value?.get() == [Note(id: 1, title: "a")])
        #expect(missing.value.map { if case .failure(.notFound) = $0 { true } else { false } } == true)
        #expect(try created.value?.get() == Note(id: 3, title: "new"))
        let list = try #require(backend.requests.first { $0.method == .get && $0.path == "/v1/notes" })
        #expect(list.url.query == "archived=false&page=2&tags=a&tags=b")
        #expect(list.headerFields[.accept] == "application/json")
        let post = try #require(backend.requests.first { $0.method == .post })
        #expect(text(post.body) == #"{"body":"…","title":"new"}"#)
    }

    @Test("async/await: serializingDecodable with a snake-case decoder; an error body read from DataResponse.data")
    func asyncLayer() async throws {
        // Given a profile, and a patch the server refuses
        let backend = SimulatedBackend()
        backend.serve(.get, path: "/profiles/7") { _ in .json(200, #"{"user_id":7,"display_name":"Ada"}"#) }
        backend.serve(.patch, path: "/profiles/7") { _ in .json(422, #"{"message":"name taken"}"#) }
        let api = backend.withTransport { ProfileAPI(session: Session()) }

        // When the app awaits both
        let profile = try await backend.withTransport { try await api.profile(id: 7) }
        let failure = await backend.withTransport { () -> String in
            switch await api.update(id: 7, patch: ProfilePatch(displayName: "Bo")) {
            case .success: return "success"
            case let .failure(.server(status, message)): return "\(status) \(message ?? "-")"
            case .failure(.transport): return "transport"
            }
        }

        // Then the decoder's key strategy applied both ways
        #expect(profile == UserProfile(userId: 7, displayName: "Ada"))
        #expect(failure == "422 name taken")
        let patch = try #require(backend.requests.first { $0.method == .patch })
        #expect(text(patch.body) == #"{"display_name":"Bo"}"#)
        #expect(patch.headerFields[HTTPField.Name("X-Client")!] == "ios")
    }

    @Test("a hand-rolled refresher: two 401s wait for one refresh on another Session, then both are retried with the new token")
    func refreshingInterceptor() throws {
        // Given a server that takes only the fresh token
        let backend = SimulatedBackend()
        backend.serve(path: "/secure/*") { request in
            request.headerFields[.authorization] == "Bearer fresh" ? .json(200, #"{"ok":true}"#) : ResponsePlan(status: 401)
        }
        backend.serve(host: "auth.example.com", path: "/oauth/token") { _ in .json(200, #"{"access_token":"fresh"}"#) }
        let store = SessionTokenStore(accessToken: "stale", refreshToken: "r1")
        let session = backend.withTransport {
            Session(interceptor: RefreshingInterceptor(store: store, refreshSession: Session()))
        }
        let statuses = Box<[Int]>([])

        // When two requests fail with 401 at about the same time
        for path in ["/secure/a", "/secure/b"] {
            session.request("https://api.example.com" + path).validate().response { response in
                statuses.mutate { $0.append(response.response?.statusCode ?? -1) }
            }
        }
        try backend.run()

        // Then one refresh ran, and both requests succeeded with the new token
        #expect(statuses.value == [200, 200])
        #expect(backend.hits("/oauth/token") == 1)
        #expect(store.accessToken == "fresh")
        #expect(backend.authorizations("/secure/a") == ["Bearer stale", "Bearer fresh"])
        #expect(backend.authorizations("/secure/b") == ["Bearer stale", "Bearer fresh"])
        let refresh = try #require(backend.requests.first { $0.path == "/oauth/token" })
        #expect(text(refresh.body) == #"{"grant_type":"refresh_token","refresh_token":"r1"}"#)
    }

    @Test("custom ResponseSerializers and responseJSON: a comma list on .main, an envelope, `Any` from JSON")
    func customSerializers() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/csv") { _ in .text(200, "a,b,c") }
        backend.serve(path: "/wrapped") { _ in .json(200, #"{"data":{"id":5,"title":"t"}}"#) }
        backend.serve(path: "/empty") { _ in .json(200, "") }
        backend.serve(path: "/names") { _ in .json(200, #"{"names":["x","y"]}"#) }
        let session = backend.withTransport { Session() }
        let csv = Box<[String]?>(nil)
        let wrapped = Box<Note?>(nil)
        let empty = Box<String?>(nil)
        let names = Box<[String]?>(nil)

        // When
        session.request("https://api.example.com/csv").responseCommaDelimited { csv.value = $0.value }
        session.request("https://api.example.com/wrapped").response(responseSerializer: EnvelopeSerializer<Note>()) {
            wrapped.value = $0.value
        }
        session.request("https://api.example.com/empty").response(responseSerializer: EnvelopeSerializer<Note>()) {
            empty.value = $0.error.flatMap { error in
                if case .responseSerializationFailed(.inputDataNilOrZeroLength) = error { "empty" } else { "\(error)" }
            }
        }
        backend.withTransport { LegacyJSON.names(session: session) { names.value = $0 } }
        try backend.run()

        // Then
        #expect(csv.value == ["a", "b", "c"])
        #expect(wrapped.value == Note(id: 5, title: "t"))
        #expect(empty.value == "empty")
        #expect(names.value == ["x", "y"])
    }

    @Test("URLEncodedFormEncoder's key, date, key-path, space and nil options, as Alamofire's AdvancedUsage shows them")
    func formEncoderOptions() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/reminders") { _ in .json(200, "{}") }
        backend.serve(path: "/signup") { _ in .json(200, "{}") }
        let client = backend.withTransport { FormsClient(session: Session()) }
        let reminder = Reminder(title: "buy tape", due: Date(timeIntervalSince1970: 0), note: nil,
                                owner: .init(displayName: "Ada L"))

        // When
        client.remind(reminder).response { _ in }
        client.signup(LoginForm(username: "ada", password: "pw", rememberMe: true)).response { _ in }
        try backend.run()

        // Then keys are converted at every level, sorted by their converted spelling, and an explicit nil is dropped
        let remind = try #require(backend.requests.first { $0.path == "/reminders" })
        #expect(remind.url.query == "due=1970-01-01T00%3A00%3A00Z&owner.display_name=Ada+L&title=buy+tape")
        let signup = try #require(backend.requests.first { $0.path == "/signup" })
        #expect(text(signup.body) == "password=pw&remember_me=1&username=ada")   // Alamofire writes booleans 1/0
        let withNote = Reminder(title: "t", due: Date(timeIntervalSince1970: 0), note: nil, owner: .init(displayName: "a"))
        let dropValue: String = try URLEncodedFormEncoder(nilEncoding: .dropValue).encode(withNote)
        let null: String = try URLEncodedFormEncoder(nilEncoding: .null).encode(withNote)
        #expect(dropValue.contains("&note=&"))
        #expect(null.contains("&note=null&"))
        struct Keys: Encodable { let imageURLList: Int; let _privateKey: Int; let userID2go: Int }
        let kebab: String = try URLEncodedFormEncoder(keyEncoding: .convertToKebabCase).encode(Keys(imageURLList: 1, _privateKey: 2, userID2go: 3))
        let snake: String = try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase).encode(Keys(imageURLList: 1, _privateKey: 2, userID2go: 3))
        #expect(kebab == "_private-key=2&image-url-list=1&user-id2go=3")
        #expect(snake == "_private_key=2&image_url_list=1&user_id2go=3")
        struct Stamp: Encodable { let at: Date; let blob: Data }
        let stamp: String = try URLEncodedFormEncoder(dataEncoding: .custom { "\($0.count)b" }, dateEncoding: .secondsSince1970)
            .encode(Stamp(at: Date(timeIntervalSince1970: 1_000), blob: Data([1, 2, 3])))
        #expect(stamp == "at=1000.0&blob=3b")   // seconds as a Double, as Alamofire prints them
    }

    @Test("less common calls: a JSON array body via withJSONObject, a multipart form with a file, a hand-built DataResponse, an exhaustive switch over validation reasons")
    func lessCommonCalls() throws {
        // Given
        let backend = SimulatedBackend()
        backend.serve(path: "/batch") { _ in .json(200, "{}") }
        backend.serve(path: "/documents") { _ in .json(201, "{}") }
        let session = backend.withTransport { Session() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString).pdf")
        try Data("%PDF-1.4 tape".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        // When
        MoreIdioms.sendIDs([3, 1, 2], session: session).response { _ in }
        MoreIdioms.uploadDocument(fileURL: file, session: session).response { _ in }
        try backend.run()

        // Then
        let batch = try #require(backend.requests.first { $0.path == "/batch" })
        #expect(text(batch.body) == "[3,1,2]")
        #expect(batch.headerFields[.contentType] == "application/json")
        let upload = try #require(backend.requests.first { $0.path == "/documents" })
        let body = try #require(text(upload.body))
        #expect(body.contains(#"name="document"; filename="report.pdf""#))
        #expect(body.contains("Content-Type: application/pdf\r\n\r\n%PDF-1.4 tape\r\n"))
        #expect(body.contains("name=\"year\"\r\n\r\n2024\r\n"))
        #expect(MoreIdioms.mockResponse(status: 200, body: "hi").value == Data("hi".utf8))
        #expect(MoreIdioms.mockFailure().error?.isSessionTaskError == true)
        #expect(MoreIdioms.explain(.dataFileNil) == "file")
        #expect(MoreIdioms.explain(.unacceptableStatusCode(code: 410)) == "status 410")
        #expect(MoreIdioms.explain(.invalidEmptyResponse(type: "Note")) == "empty Note")
    }
}
