import Foundation
import Testing
import TapedeckSimulatedBackend
import TapedeckClient
import HTTPTypes
import TapedeckHTTP

/// UserCode/RepoClient.swift: Alamofire's async API (`serializingDecodable(_:)`, `serializingData()`,
/// `DataTask.value` / `.response` / `.result`, `Session.default`, `AF`). Awaiting runs the backend's
/// simulation, so the user code needs no help from the test.
@Suite("Compat: async calls written for Alamofire")
struct AsyncTests {
    private func reposBackend() -> SimulatedBackend {
        let backend = SimulatedBackend()
        backend.serve(path: "/users/ada/repos") { _ in .json(200, #"[{"id":1,"name":"engine"},{"id":2,"name":"notes"}]"#) }
        backend.serve(path: "/users/nobody/repos") { _ in .json(404, #"{"error":"no such user"}"#) }
        return backend
    }

    @Test("`try await …serializingDecodable(T.self).value` on Session.default returns the decoded value")
    func valueOfTheDefaultSession() async throws {
        let backend = reposBackend()
        let repos = try await backend.withTransport { try await RepoClient.repos(for: "ada") }
        #expect(repos == [Repo(id: 1, name: "engine"), Repo(id: 2, name: "notes")])
        #expect(backend.requests.first?.headerFields[.accept] == "application/json")
    }

    @Test("`.value` throws the AFError: a 404 after validate() is a responseValidationFailed with its code")
    func valueThrowsTheValidationError() async throws {
        let backend = reposBackend()
        do {
            _ = try await backend.withTransport { try await RepoClient.repos(for: "nobody") }
            Issue.record("expected a validation error")
        } catch let error as AFError {
            #expect(error.isResponseValidationError)
            #expect(error.responseCode == 404)
        }
    }

    @Test("`await task.response` on AF is the whole DataResponse: request, status, data, result")
    func responseOfAF() async throws {
        let backend = reposBackend()
        let response = await backend.withTransport { await RepoClient.reposResponse(for: "ada") }
        #expect(response.request?.url?.path == "/users/ada/repos")
        #expect(response.response?.statusCode == 200)
        #expect(response.value?.count == 2)
        #expect(response.metrics != nil)   // the simulated transport delivers metrics
        #expect(response.map(\.count).value == 2)
    }

    @Test("serializingData().value and .result, the latter with the validation failure")
    func dataAndResult() async throws {
        let backend = reposBackend()
        let (raw, missing) = await backend.withTransport { await RepoClient.rawAndResult(for: "ada") }
        #expect(raw.map { String(decoding: $0, as: UTF8.self) }?.contains("engine") == true)
        guard case let .failure(error) = missing else {
            Issue.record("expected a failure, got \(missing)")
            return
        }
        #expect(error.responseCode == 404)
    }

    @Test("AF is Session.default, one per transport, and the live one outside any")
    func afIsTheDefaultSessionOfTheTransport() async throws {
        let backend = reposBackend()
        let (first, second, scheduler) = backend.withTransport { (AF, Session.default, AF.scheduler) }
        #expect(first === second)
        #expect(scheduler === backend.scheduler)
        #expect(AF !== first)
        #expect(AF === Session.default)
        #expect(AF.transportProfile == .corelibsURLSession)
    }

    @Test("a request that is never resumed does not hang the awaiting caller: it fails with UnansweredRequestError")
    func unresumedRequestFailsInsteadOfHanging() async throws {
        let backend = reposBackend()
        let session = backend.withTransport { Session(startRequestsImmediately: false) }
        let response = await session.request("https://api.example.com/users/ada/repos").serializingData().response
        withExtendedLifetime(session) {}
        guard case let .sessionTaskFailed(error as UnansweredRequestError)? = response.error else {
            Issue.record("expected UnansweredRequestError, got \(String(describing: response.error))")
            return
        }
        #expect(error.request == "No request created yet.")
    }

    @Test("Session(provider:scheduler:drive:): an awaited task runs the simulation itself, no test help")
    func sessionWithItsDriver() async throws {
        let backend = reposBackend()
        let scheduler = backend.scheduler
        let session = Session(provider: backend.harness, scheduler: scheduler, drive: { try scheduler.runUntilIdle() })
        let repos = try await session.request("https://api.example.com/users/ada/repos").validate()
            .serializingDecodable([Repo].self).value
        #expect(repos.map(\.name) == ["engine", "notes"])
    }
}
