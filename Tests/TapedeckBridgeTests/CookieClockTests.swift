import Foundation
import Synchronization
import Testing
import TapedeckBridge
import TapedeckHTTP
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bridge: cookie lifetimes on virtual time")
struct CookieClockTests {
    @Test("Max-Age and Expires (measured from the response's Date) run out on the simulation's clock: a cookie recorded years ago is still sent, one past its lifetime is not, Max-Age=0 deletes; a task made before the expiry and resumed after sends none")
    func lifetimesOnVirtualTime() throws {
        // Given a server whose login, answered in 2020, sets cookies with every kind of lifetime
        let fixture = BridgeFixture()
        fixture.network.route(path: "/login") { _, _ in
            .response(ResponsePlan(status: 200, headers: [
                ("Date", "Wed, 01 Jan 2020 00:00:00 GMT"),
                ("Set-Cookie", "short=1; Max-Age=60; Path=/"),
                ("Set-Cookie", "dated=1; Expires=Wed, 01 Jan 2020 00:00:30 GMT; Path=/"),
                ("Set-Cookie", "session=1; Path=/"),
                ("Set-Cookie", "old=1; Max-Age=3600; Path=/"),
            ]))
        }
        fixture.network.route(path: "/logout") { _, _ in
            .response(ResponsePlan(status: 200, headers: [("Set-Cookie", "old=gone; Max-Age=0; Path=/")]))
        }
        let seen = Mutex<[String: String]>([:])
        fixture.network.route(path: "/read") { request, _ in
            let name = request.url.query ?? "?"
            seen.withLock { $0[name] = request.headerFields[.cookie] ?? "" }
            return .response(.text(200, "ok"))
        }
        // When the client reads at 10 s, 45 s, after logging out at 50 s, and at 90 s, and makes
        // a task at 59 s that it resumes only at 70 s
        fixture.get("login", "http://api.test/login")
        fixture.get("t10", "http://api.test/read?t10", after: .seconds(10))
        fixture.get("t45", "http://api.test/read?t45", after: .seconds(45))
        fixture.get("logout", "http://api.test/logout", after: .seconds(50))
        fixture.get("t55", "http://api.test/read?t55", after: .seconds(55))
        fixture.start("late", URLRequest(url: URL(string: "http://api.test/read?late")!), after: .seconds(59), resume: false)
        fixture.at(.seconds(70), "late") { $0.resume() }
        fixture.get("t90", "http://api.test/read?t90", after: .seconds(90))
        try fixture.scheduler.runUntilIdle()
        // Then each read carries the cookies alive at its virtual instant, whatever today's date
        let cookies = seen.withLock { $0 }
        #expect(cookies["t10"] == "dated=1; old=1; session=1; short=1", "\(cookies)")
        #expect(cookies["t45"] == "old=1; session=1; short=1", "\(cookies)")
        #expect(cookies["t55"] == "session=1; short=1", "\(cookies)")
        #expect(cookies["late"] == "session=1", "\(cookies)")
        #expect(cookies["t90"] == "session=1", "\(cookies)")
        // And the storage the client can read holds only the live one; each expiry is in the trace
        let names = (fixture.session.configuration.httpCookieStorage?.cookies ?? []).map(\.name)
        #expect(names == ["session"])
        let expired = fixture.scheduler.trace.filter { $0.event == "bridge.cookie.expired" }.map(\.payload)
        #expect(expired == ["dated", "short"], "\(expired)")
    }

    @Test("a response from another site cannot delete a cookie or stop its expiry, and Max-Age=+60 is no Max-Age")
    func otherSitesCookies() throws {
        // Given a bank that sets a cookie for a minute, and another site that answers with cookies for the bank's domain
        let fixture = BridgeFixture()
        fixture.network.route(host: "bank.test", path: "/login") { _, _ in
            .response(ResponsePlan(status: 200, headers: [("Set-Cookie", "sid=1; Domain=bank.test; Path=/; Max-Age=60"),
                                                          ("Set-Cookie", "plus=1; Path=/; Max-Age=+60")]))
        }
        fixture.network.route(host: "evil.test", path: "/x") { _, _ in
            .response(ResponsePlan(status: 200, headers: [("Set-Cookie", "sid=; Domain=bank.test; Path=/; Max-Age=0"),
                                                          ("Set-Cookie", "sid=forever; Domain=bank.test; Path=/")]))
        }
        let seen = Mutex<[String: String]>([:])
        fixture.network.route(host: "bank.test", path: "/read") { request, _ in
            seen.withLock { $0[request.url.query ?? "?"] = request.headerFields[.cookie] ?? "" }
            return .response(.text(200, "ok"))
        }
        // When the client visits the other site, then reads at the bank at 10 s and 90 s
        fixture.get("login", "http://bank.test/login")
        fixture.get("evil", "http://evil.test/x", after: .seconds(1))
        fixture.get("t10", "http://bank.test/read?t10", after: .seconds(10))
        fixture.get("t90", "http://bank.test/read?t90", after: .seconds(90))
        try fixture.scheduler.runUntilIdle()
        // Then the other site changed nothing: the bank's cookie is sent, then expires on time;
        // `+60` is no Max-Age, so that cookie is a session cookie
        let cookies = seen.withLock { $0 }
        #expect(cookies["t10"] == "plus=1; sid=1", "\(cookies)")
        #expect(cookies["t90"] == "plus=1", "\(cookies)")
    }
}
