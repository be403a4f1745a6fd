import Synchronization

/// A reference set at most once, then read with one atomic load: `AtomicLazyReference`'s job,
/// specialised. That type's `load()` is not inlinable, so every call (on each update check: the
/// router, the prepared body) went through its unspecialised generic entry point and a generic
/// metadata lookup — 1.8 % of a /latest profile (issue #35).
///
/// Sound without a reclamation scheme because it is write-once: the stored object is retained
/// here until the holder itself is destroyed, so whoever holds the holder may turn what it
/// loaded into a strong reference at any time; the acquiring load pairs with the releasing
/// exchange, so the object's initialisation is visible to every reader that sees it.
struct OnceReference<Value: AnyObject & Sendable>: ~Copyable, Sendable {
    private let slot = Atomic<Unmanaged<Value>?>(nil)

    init() {}

    deinit { slot.load(ordering: .acquiring)?.release() }

    func load() -> Value? { slot.load(ordering: .acquiring)?.takeUnretainedValue() }

    /// Stores `value` unless one is there already; returns the one kept.
    func storeIfNil(_ value: Value) -> Value {
        let new = Unmanaged.passRetained(value)
        let (stored, current) = slot.compareExchange(expected: nil, desired: new, ordering: .acquiringAndReleasing)
        if stored { return value }
        new.release()
        return current!.takeUnretainedValue()
    }
}
