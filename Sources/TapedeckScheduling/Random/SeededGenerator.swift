/// A fast, seedable random number generator (xoshiro256**), seeded through SplitMix64.
///
/// Every random decision on the simulated path comes from one of these, derived from the
/// simulation's seed (see ``SimulationRandom``); nothing calls `SystemRandomNumberGenerator`.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// A generator whose sequence depends only on `seed`.
    public init(seed: UInt64) {
        var mixer = SplitMix64(state: seed)
        s0 = mixer.next(); s1 = mixer.next(); s2 = mixer.next(); s3 = mixer.next()
    }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// A value in `0..<upperBound` without modulo bias (Lemire's multiply-shift with rejection,
    /// written out here so the sequence never depends on the standard library's algorithm).
    public mutating func next(below upperBound: Int) -> Int {
        precondition(upperBound > 0, "upper bound must be positive")
        let bound = UInt64(upperBound)
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return Int(truncatingIfNeeded: product.high)
    }

    /// True with probability `numerator / denominator`, decided in integers.
    public mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        precondition(denominator > 0 && numerator >= 0, "invalid probability \(numerator)/\(denominator)")
        return next(below: denominator) < numerator
    }
}

/// SplitMix64: turns one 64-bit seed into well-mixed seed material.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@inline(__always)
func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
    (x << k) | (x >> (64 - k))
}
