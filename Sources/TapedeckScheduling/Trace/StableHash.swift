/// Hash functions with a fixed definition, so values compare across processes and machines.
///
/// Swift's `Hasher` is seeded per process and must never be used for anything that is compared
/// outside the process; these functions are. Their definitions are part of the trace format
/// (docs/scheduling.md) and changing them changes every recorded trace hash.
public enum StableHash {
    /// FNV-1a's 64-bit offset basis.
    public static let fnvOffset: UInt64 = 0xCBF2_9CE4_8422_2325
    /// FNV-1a's 64-bit prime.
    public static let fnvPrime: UInt64 = 0x0000_0100_0000_01B3

    /// 64-bit FNV-1a over the UTF-8 bytes of `string`.
    public static func fnv1a(_ string: String) -> UInt64 {
        var hash = fnvOffset
        for byte in string.utf8 {
            hash = (hash ^ UInt64(byte)) &* fnvPrime
        }
        return hash
    }

    /// 64-bit FNV-1a over raw bytes, continuing from `hash`.
    public static func fnv1a<Bytes: Sequence>(_ bytes: Bytes, continuing hash: UInt64 = fnvOffset) -> UInt64
    where Bytes.Element == UInt8 {
        var hash = hash
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* fnvPrime
        }
        return hash
    }

    /// Folds one 64-bit word into a running hash (a multiply-rotate-multiply round).
    @inline(__always)
    public static func combine(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        var k = word &* 0x87C3_7B91_1142_53D5
        k = rotateLeft(k, 31) &* 0x4CF5_AD43_2745_937F
        var h = hash ^ k
        h = rotateLeft(h, 27) &* 5 &+ 0x52DC_E729
        return h
    }

    /// The final avalanche applied when a running hash is read (MurmurHash3's fmix64).
    @inline(__always)
    public static func finalize(_ hash: UInt64) -> UInt64 {
        var h = hash
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }
}
