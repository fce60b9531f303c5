import Testing
import TapedeckScheduling

@Suite("Seeded randomness")
struct RandomTests {
    @Test("a stream depends only on the seed and its name")
    func streamsAreReproducibleAndIndependent() {
        let random = SimulationRandom(seed: 42)
        var a1 = random.stream("network.latency")
        var a2 = SimulationRandom(seed: 42).stream("network.latency")
        var other = random.stream("scheduler.roots")
        let first = (0..<16).map { _ in a1.next() }
        #expect(first == (0..<16).map { _ in a2.next() })
        #expect(first != (0..<16).map { _ in other.next() })
        var differentSeed = SimulationRandom(seed: 43).stream("network.latency")
        #expect(first != (0..<16).map { _ in differentSeed.next() })
    }

    @Test("bounded draws stay in range and cover it")
    func boundedDraws() {
        var generator = SeededGenerator(seed: 1)
        var seen = Set<Int>()
        for _ in 0..<1_000 {
            let value = generator.next(below: 7)
            #expect((0..<7).contains(value))
            seen.insert(value)
        }
        #expect(seen.count == 7)
        var hits = 0
        for _ in 0..<10_000 where generator.chance(1, in: 4) { hits += 1 }
        #expect((2_200...2_800).contains(hits))
    }
}
