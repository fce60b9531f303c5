/// The one source of randomness of a simulation: a seed and the named sub-streams derived from it.
///
/// Each consumer asks for its own stream by name (`"scheduler.roots"`, `"network.latency"`, ...).
/// A stream depends only on the seed and its name, so adding a new consumer, or drawing more
/// numbers from one stream, never changes what another stream produces.
///
/// ```swift
/// let random = SimulationRandom(seed: 42)
/// var jitter = random.stream("network.latency")
/// let extra = jitter.next(below: 1_000)
/// ```
public struct SimulationRandom: Sendable, Hashable {
    /// The seed all streams derive from.
    public let seed: UInt64

    /// Streams derived from `seed`.
    public init(seed: UInt64) {
        self.seed = seed
    }

    /// A generator for the named sub-stream; the same name always gives the same sequence.
    public func stream(_ name: String) -> SeededGenerator {
        var mixer = SplitMix64(state: seed ^ StableHash.fnv1a(name))
        return SeededGenerator(seed: mixer.next())
    }

    /// A seed for a nested simulation (for example one per explored run), derived by index.
    public func derivedSeed(_ name: String, index: UInt64) -> UInt64 {
        var mixer = SplitMix64(state: seed ^ StableHash.fnv1a(name) ^ (index &* 0x9E37_79B9_7F4A_7C15))
        return mixer.next()
    }
}
