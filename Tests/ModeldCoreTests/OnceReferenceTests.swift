import Dispatch
import Synchronization
import Testing
@testable import ModeldCore

/// OnceReference keeps the first value stored, from any number of threads racing, and lets it
/// go with its holder (the served catalog's cells and the router box rely on both).
@Suite struct OnceReferenceTests {
    final class Value: Sendable {
        let n: Int
        init(_ n: Int) { self.n = n }
    }

    final class Holder: Sendable {
        let ref = OnceReference<Value>()
    }

    @Test func emptyUntilStoredThenTheFirstValueStays() {
        let h = Holder()
        #expect(h.ref.load() == nil)
        let first = Value(1)
        #expect(h.ref.storeIfNil(first) === first)
        #expect(h.ref.storeIfNil(Value(2)) === first)
        #expect(h.ref.load() === first)
    }

    @Test func racingStoresAllSeeOneValue() {
        let h = Holder()
        let seen = Mutex<Set<ObjectIdentifier>>([])
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let kept = h.ref.storeIfNil(Value(i))
            seen.withLock { _ = $0.insert(ObjectIdentifier(kept)) }
        }
        #expect(seen.withLock { $0.count } == 1)
        #expect(seen.withLock { $0.first } == h.ref.load().map(ObjectIdentifier.init))
    }

    @Test func theValueIsReleasedWithItsHolderAndALosingValueAtOnce() {
        weak var kept: Value?
        weak var lost: Value?
        do {
            let h = Holder()
            let a = Value(1), b = Value(2)
            kept = a
            lost = b
            _ = h.ref.storeIfNil(a)
            _ = h.ref.storeIfNil(b)
        }
        #expect(kept == nil)
        #expect(lost == nil)
    }
}
