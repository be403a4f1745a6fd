// Lock-free cells for hot-path recording from several loop threads: one relaxed atomic add,
// in one allocation made up front (no per-cell objects, so no reference counting per record).
import Synchronization

// Invariant: `cells` is allocated and initialised once in init, freed only in deinit, and
// only ever accessed through `Atomic` operations.
public final class MetricsCounterTable: @unchecked Sendable {
    public let count: Int
    private let cells: UnsafeMutablePointer<Atomic<Int>>

    public init(count: Int) {
        self.count = count
        cells = .allocate(capacity: count)
        for index in 0..<count { (cells + index).initialize(to: Atomic(0)) }
    }

    deinit {
        cells.deinitialize(count: count)
        cells.deallocate()
    }

    @inline(__always)
    public func add(_ index: Int, _ amount: Int = 1) {
        precondition(index >= 0 && index < count, "metrics cell out of range")
        cells[index].wrappingAdd(amount, ordering: .relaxed)
    }

    @inline(__always)
    public func set(_ index: Int, _ value: Int) {
        precondition(index >= 0 && index < count, "metrics cell out of range")
        cells[index].store(value, ordering: .relaxed)
    }

    public func value(_ index: Int) -> Int {
        precondition(index >= 0 && index < count, "metrics cell out of range")
        return cells[index].load(ordering: .relaxed)
    }
}

/// Durations in fixed buckets, kept per bucket (not cumulative) so an observation is one add
/// per cell; rendering makes them cumulative.
public final class MetricsHistogram: Sendable {
    /// Upper bounds in seconds, ascending; `+Inf` is implicit.
    public let bounds: [Double]
    private let boundsNanoseconds: [Int]
    /// Cells 0...bounds.count are the buckets (the last is `+Inf`), then the sum in nanoseconds.
    private let cells: MetricsCounterTable

    public init(bounds: [Double]) {
        self.bounds = bounds
        boundsNanoseconds = bounds.map { Int(($0 * 1e9).rounded()) }
        cells = MetricsCounterTable(count: bounds.count + 2)
    }

    public func observe(nanoseconds: Int) {
        let value = max(0, nanoseconds)
        cells.add(boundsNanoseconds.firstIndex { value <= $0 } ?? boundsNanoseconds.count)
        cells.add(bounds.count + 1, value)
    }

    public func observe(seconds: Double) {
        observe(nanoseconds: Int((seconds * 1e9).rounded()))
    }

    /// Cumulative counts per bound then `+Inf`, the count (= the `+Inf` bucket, so the two
    /// always agree even while other threads record), and the sum in seconds.
    public func snapshot() -> (cumulative: [Int], count: Int, sumSeconds: Double) {
        var running = 0
        let cumulative = (0...bounds.count).map { index in
            running += cells.value(index)
            return running
        }
        return (cumulative, running, Double(cells.value(bounds.count + 1)) / 1e9)
    }
}
