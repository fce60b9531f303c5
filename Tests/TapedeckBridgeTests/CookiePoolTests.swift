import Foundation
import Testing
@testable import TapedeckBridge
import TapedeckNetwork
import TapedeckScheduling
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bridge: in-memory cookie storages reused between harnesses")
struct CookiePoolTests {
    private func cookie(_ name: String) -> HTTPCookie {
        HTTPCookie(properties: [.name: name, .value: "1", .domain: "api.test", .path: "/"])!
    }

    @Test("a storage given back comes out again empty and accepting every cookie once nothing else holds it")
    func returnedStorageIsEmptied() throws {
        // A pool of its own, so no other test's harness takes the storage in between.
        let pool = CookieStoragePool(limit: 2)
        var storage: HTTPCookieStorage? = pool.take()
        let identity = ObjectIdentifier(storage!)
        storage!.setCookie(cookie("session"))
        storage!.setCookie(cookie("theme"))
        storage!.cookieAcceptPolicy = .never
        pool.giveBack(storage!)
        storage = nil

        let again = pool.take()

        #if canImport(FoundationNetworking)
        #expect(ObjectIdentifier(again) == identity)
        #endif
        #expect(again.cookies ?? [] == [])
        #expect(again.cookieAcceptPolicy == .always)
    }

    @Test("a storage someone still holds (a session's configuration, a test) is not handed out, and keeps its cookies")
    func heldStorageIsNotReused() {
        let pool = CookieStoragePool(limit: 2)
        let kept = pool.take()
        kept.setCookie(cookie("session"))
        pool.giveBack(kept)

        let other = pool.take()

        #expect(other !== kept)
        #expect(other.cookies ?? [] == [])
        #expect(kept.cookies?.count == 1, "the holder's cookies stay as they were")
    }

    @Test("the pool keeps at most its limit, dropping the oldest")
    func poolIsBounded() {
        let pool = CookieStoragePool(limit: 1)
        var first: HTTPCookieStorage? = pool.take()
        var second: HTTPCookieStorage? = pool.take()
        let secondIdentity = ObjectIdentifier(second!)
        pool.giveBack(first!)
        pool.giveBack(second!)
        first = nil
        second = nil

        let reused = pool.take()
        let fresh = pool.take()

        #if canImport(FoundationNetworking)
        #expect(ObjectIdentifier(reused) == secondIdentity)
        #endif
        #expect(fresh !== reused)
    }

    @Test("a harness's cookies never reach the next harness, however the storage travels")
    func nextHarnessStartsWithoutCookies() {
        for _ in 0..<3 {
            let network = SimulatedNetwork(scheduler: SimulatedScheduler(seed: 1))
            let harness = Harness(network: network)
            #expect(harness.cookieStorage.cookies ?? [] == [])
            harness.cookieStorage.setCookie(cookie("from-earlier-harness"))
        }
    }
}
