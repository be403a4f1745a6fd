// Lock-free cells for hot-path recording from several loop threads: one relaxed atomic add each.
import Synchronization

/// A monotonically increasing count.
public final class MetricsCounter: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    @inline(__always)
    public func add(_ amount: Int = 1) {
        count.wrappingAdd(amount, ordering: .relaxed)
    }

    public var value: Int { count.load(ordering: .relaxed) }
}

/// A value that goes up and down, set by its owner.
public final class MetricsGauge: Sendable {
    private let current = Atomic<Int>(0)

    public init() {}

    public func set(_ value: Int) {
        current.store(value, ordering: .relaxed)
    }

    public var value: Int { current.load(ordering: .relaxed) }
}

/// Durations in fixed buckets, kept per bucket (not cumulative) so an observation is one add
/// per cell; rendering makes them cumulative.
public final class MetricsHistogram: Sendable {
    /// Upper bounds in seconds, ascending; `+Inf` is implicit.
    public let bounds: [Double]
    private let boundsNanoseconds: [Int]
    private let buckets: [MetricsCounter]
    private let sumNanoseconds = MetricsCounter()

    public init(bounds: [Double]) {
        self.bounds = bounds
        boundsNanoseconds = bounds.map { Int(($0 * 1e9).rounded()) }
        buckets = (0...bounds.count).map { _ in MetricsCounter() }
    }

    public func observe(nanoseconds: Int) {
        let value = max(0, nanoseconds)
        let index = boundsNanoseconds.firstIndex { value <= $0 } ?? boundsNanoseconds.count
        buckets[index].add()
        sumNanoseconds.add(value)
    }

    public func observe(seconds: Double) {
        observe(nanoseconds: Int((seconds * 1e9).rounded()))
    }

    /// Cumulative counts per bound then `+Inf`, the count (= the `+Inf` bucket, so the two
    /// always agree even while other threads record), and the sum in seconds.
    public func snapshot() -> (cumulative: [Int], count: Int, sumSeconds: Double) {
        var running = 0
        let cumulative = buckets.map { bucket in
            running += bucket.value
            return running
        }
        return (cumulative, running, Double(sumNanoseconds.value) / 1e9)
    }
}
