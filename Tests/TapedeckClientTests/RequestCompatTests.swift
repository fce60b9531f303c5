import Foundation
import Testing
import TapedeckClient
import TapedeckHTTP
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Alamofire's Request accessors beyond the state machine: first/last task and metrics, the cURL
/// description, and the URLRequest / task creation callbacks.
@Suite("Request: Alamofire's accessors and creation callbacks")
struct RequestCompatTests {
    @Test("on a retried request, creation callbacks see each attempt's URLRequest and task; first and last differ")
    func creationCallbacksOnEveryAttempt() throws {
        // Given a route failing once with 503, and a request that retries it
        let fixture = ClientFixture(interceptor: RetryPolicy())
        fixture.sequence(path: "/flaky") { n in n == 1 ? ResponsePlan(status: 503) : .json(200, "{}") }
        let urls = Box<[String]>([])
        let tasks = Box<[Int]>([])

        // When callbacks are registered before it starts
        let request = fixture.session.request("http://api.test/flaky")
            .onURLRequestCreation { _ in urls.mutate { $0.append($0.isEmpty ? "first" : "again") } }
            .onURLSessionTaskCreation { task in tasks.mutate { $0.append(task.taskIdentifier) } }
        request.validate().responseData { _ in }
        try fixture.run()

        // Then each attempt reported its URLRequest and its task, in order
        #expect(urls.value == ["first", "again"])
        #expect(tasks.value == request.tasks.map(\.taskIdentifier))
        #expect(request.firstTask !== request.lastTask)
        #expect(request.firstMetrics != nil && request.lastMetrics != nil && request.firstMetrics != request.lastMetrics)
    }

    @Test("callbacks registered after the request finished are called once, with the last URLRequest and task")
    func lateRegistrationGetsTheLastOnes() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get").responseData { _ in }
        try fixture.run()
        let seen = Box<[String]>([])

        request.onURLRequestCreation { urlRequest in seen.mutate { $0.append(urlRequest == request.request ? "request" : "?") } }
            .onURLSessionTaskCreation { task in seen.mutate { $0.append(task === request.lastTask ? "task" : "?") } }
            .cURLDescription { description in seen.mutate { $0.append(description.hasSuffix("\"http://api.test/get\"") ? "curl" : "?") } }
        try fixture.run()

        #expect(seen.value == ["request", "task", "curl"])
    }

    @Test("cURLDescription: method, the configuration's and the request's headers, the escaped body, the URL")
    func curlDescription() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get", method: .post, parameters: ["say": #"a "quoted" word"#],
                                              encoding: JSONEncoding.default, headers: [.accept("application/json")])
        #expect(request.cURLDescription() == "$ curl command could not be created")
        request.response { _ in }
        try fixture.run()

        #expect(request.cURLDescription() == [
            "$ curl -v", "-X POST", #"-H "Accept: application/json""#, #"-H "Content-Type: application/json""#,
            #"-d "{\"say\":\"a \\\"quoted\\\" word\"}""#, #""http://api.test/get""#,
        ].joined(separator: " \\\n\t"))
    }

    @Test("authenticate(username:password:) and authenticate(with:) keep the credential a challenge would get; the request runs as before")
    func authenticateKeepsCredential() throws {
        let fixture = ClientFixture()
        fixture.serveTestAPI()
        let request = fixture.session.request("http://api.test/get").authenticate(username: "ada", password: "s3cret", persistence: .none)
        #expect(request.credential?.user == "ada" && request.credential?.password == "s3cret")
        let other = fixture.session.request("http://api.test/get").authenticate(with: URLCredential(user: "bob", password: "pw", persistence: .forSession))
        #expect(other.credential?.user == "bob")
        let status = Box<Int?>(nil)
        request.response { status.value = $0.response?.statusCode }
        try fixture.run()
        #expect(status.value == 200, "the simulated transport never challenges: the request goes as any other")
    }

    @Test("a 401 offering Basic is answered with the request's credential, as Alamofire's delegate answers it; without one, or after a failure, the 401 is the answer")
    func basicChallengeAnswered() throws {
        let fixture = ClientFixture()
        let expected = "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
        fixture.network.route(path: "/private") { request, _ in
            request.headerFields[.authorization] == expected
                ? .response(.text(200, "welcome"))
                : .response(.text(401, "who are you", headers: [("WWW-Authenticate", #"Basic realm="staff""#)]))
        }
        let answers = Box<[String: (Int?, String?)]>([:])
        func ask(_ name: String, _ request: DataRequest) {
            request.responseString { response in answers.value[name] = (response.response?.statusCode, response.value) }
        }
        ask("right", fixture.session.request("http://api.test/private").authenticate(username: "ada", password: "s3cret"))
        ask("wrong", fixture.session.request("http://api.test/private").authenticate(username: "ada", password: "guess"))
        ask("none", fixture.session.request("http://api.test/private"))
        try fixture.run()
        #expect(answers.value["right"]?.0 == 200 && answers.value["right"]?.1 == "welcome")
        #expect(answers.value["wrong"]?.0 == 401, "rejected after its one failure, as Alamofire's delegate does")
        #expect(answers.value["none"]?.0 == 401 && answers.value["none"]?.1 == "who are you")
    }
}
