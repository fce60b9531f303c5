import Testing
import TapedeckServer

@Suite("Server: the bounded miss and fault logs")
struct RecentLogTests {
    @Test("a log keeps the last entries in order, counts every one, and forgets all on removeAll")
    func keepsTheLast() {
        var log = RecentLog<Int>(capacity: 1_000)
        for entry in 0..<2_500 { log.append(entry) }
        #expect(log.entries == Array(1_500..<2_500))
        #expect(log.total == 2_500 && log.dropped == 1_500)
        log.append(2_500)
        #expect(log.entries.first == 1_501 && log.entries.last == 2_500 && log.entries.count == 1_000)
        log.removeAll()
        #expect(log.entries.isEmpty && log.total == 0 && log.dropped == 0)
        log.append(7)
        #expect(log.entries == [7] && log.dropped == 0)
    }
}
