/// One arm's running sums over its clients' values (SPEC §11.3): n, Σx, Σx². Enough for the
/// mean and the variance without keeping the values; a client whose value changes is taken
/// out with its old value and put back with the new one.
public struct ArmStats: Hashable, Sendable {
    public private(set) var clients: Int
    public private(set) var sum: Double
    public private(set) var sumOfSquares: Double

    public init(clients: Int = 0, sum: Double = 0, sumOfSquares: Double = 0) {
        self.clients = clients
        self.sum = sum
        self.sumOfSquares = sumOfSquares
    }

    /// m = Σx/n; nil for an arm without clients, and for sums beyond Double (absurd `mean`
    /// values), so no NaN or infinity ever reaches a decision or a JSON document.
    public var mean: Double? {
        guard clients > 0 else { return nil }
        let m = sum / Double(clients)
        return m.isFinite ? m : nil
    }

    /// s² = Σx²/n − m² (divided by n, as §11.3 says: for 0/1 values exactly p̂(1−p̂)); clamped
    /// at 0 against rounding when every value is the same; nil as for `mean`.
    public var variance: Double? {
        guard let m = mean else { return nil }
        let v = sumOfSquares / Double(clients) - m * m
        return v.isFinite ? max(0, v) : nil
    }

    /// `count` clients whose values sum to `sum` with squares summing to `sumOfSquares`.
    /// For 0/1 values Σx² = Σx, so a batch of clients is (count, successes, successes).
    public mutating func add(clients count: Int, sum: Double, sumOfSquares: Double) {
        clients += count
        self.sum += sum
        self.sumOfSquares += sumOfSquares
    }

    /// A client already counted whose value moved from `old` to `new`.
    mutating func replace(_ old: Double, with new: Double) {
        sum += new - old
        sumOfSquares += new * new - old * old
    }
}
