#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread stack of queue chains entered through `sync` (GCD's own specific lookup only sees
/// the innermost queue, but code inside `B.sync` called from `A` is on both).
final class SyncFrames {
    var chains: [QueueChain] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<SyncFrames>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<SyncFrames>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(status == 0, "tapedeck: pthread_key_create failed (\(status))")
        return key
    }()

    /// The calling thread's stack, created on first use and released when the thread exits.
    static var current: SyncFrames {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<SyncFrames>.fromOpaque(pointer).takeUnretainedValue()
        }
        let frames = SyncFrames()
        pthread_setspecific(key, Unmanaged.passRetained(frames).toOpaque())
        return frames
    }
}
