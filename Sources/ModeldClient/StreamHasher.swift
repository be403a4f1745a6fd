import CryptoPrimitives
import Dispatch

/// SHA-256 of a stream, computed on a thread of its own so that hashing overlaps receiving and
/// writing (it costs about as much CPU as writing to the page cache). At most `maxQueued`
/// chunks wait, so memory stays flat and a hasher slower than the network slows the receiver.
final class StreamHasher: Sendable {
    private static let maxQueued = 4
    private let queue = DispatchQueue(label: "ModeldClient.hash")
    private let slots = DispatchSemaphore(value: maxQueued)
    private let state = Locked(SHA256())

    /// Queues `chunk` after the chunks before it.
    func update(_ chunk: [UInt8]) {
        slots.wait()
        queue.async { [self] in
            state.withLock { $0.update(data: chunk) }
            slots.signal()
        }
    }

    /// The digest of everything given so far, once the queued chunks are hashed.
    func finalize() -> SHA256.Digest {
        queue.sync {}
        return state.withLock { $0.finalize() }
    }
}
