/// The evaluator's per-client state (SPEC §11.5: ≤ 64 bytes per client): each client's
/// `ClientTally` under a 64-bit hash of its id, in an open-addressing table (linear probing) of
/// six parallel arrays — key 8 bytes, total 8, events 4, arm 1, cohort 1, in-SRM 1 — so a slot
/// costs 23 bytes. Doubling at 3/4 load, a client costs 30.7–61.3 bytes (48 at 1 M clients). A
/// `Dictionary<UInt64, ClientTally>` costs 24 bytes and a bit per bucket (the tally's stride is
/// 16) at the same load: 32–64.3 bytes, over the budget just after each doubling.
public struct ClientTable: Sendable {
    /// 0 marks an empty slot; a key of 0 is stored as 1 (one more hash collision in 2^64).
    private var keys: [UInt64]
    private var totals: [Double]
    private var events: [UInt32]
    private var arms: [Arm]
    private var cohorts: [UInt8]
    private var inSRM: [Bool]
    public private(set) var count = 0

    public init() { self.init(slots: 16) }

    private init(slots: Int) {
        keys = Array(repeating: 0, count: slots)
        totals = Array(repeating: 0, count: slots)
        events = Array(repeating: 0, count: slots)
        arms = Array(repeating: .treatment, count: slots)
        cohorts = Array(repeating: 0, count: slots)
        inSRM = Array(repeating: false, count: slots)
    }

    /// Bytes the table holds, whatever its load: what §11.5's budget is about.
    public var bytes: Int { keys.count * (MemoryLayout<UInt64>.stride + MemoryLayout<Double>.stride + MemoryLayout<UInt32>.stride + MemoryLayout<Arm>.stride + MemoryLayout<UInt8>.stride + MemoryLayout<Bool>.stride) }

    /// The tally stored under `key`, nil for a client not seen yet.
    public subscript(key: UInt64) -> ClientTally? {
        let i = slot(of: Self.stored(key))
        guard keys[i] != 0 else { return nil }
        return ClientTally(arm: arms[i], cohort: cohorts[i], events: events[i], total: totals[i], inSRM: inSRM[i])
    }

    /// Stores `tally` under `key`, adding the client when it is new.
    public mutating func set(_ tally: ClientTally, for key: UInt64) {
        let k = Self.stored(key)
        var i = slot(of: k)
        if keys[i] == 0 {
            if (count + 1) * 4 > keys.count * 3 {
                grow()
                i = slot(of: k)
            }
            keys[i] = k
            arms[i] = tally.arm
            cohorts[i] = tally.cohort
            count += 1
        }
        totals[i] = tally.total
        events[i] = tally.events
        inSRM[i] = tally.inSRM
    }

    private static func stored(_ key: UInt64) -> UInt64 { key == 0 ? 1 : key }

    /// The slot holding `key`, or the empty slot where it goes. Fibonacci hashing takes the
    /// product's high bits, so keys that differ only in their high bits still spread.
    private func slot(of key: UInt64) -> Int {
        let mask = keys.count - 1
        var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        while keys[i] != 0 && keys[i] != key { i = (i + 1) & mask }
        return i
    }

    private mutating func grow() {
        var bigger = ClientTable(slots: keys.count * 2)
        for i in keys.indices where keys[i] != 0 {
            let j = bigger.slot(of: keys[i])
            bigger.keys[j] = keys[i]
            bigger.totals[j] = totals[i]
            bigger.events[j] = events[i]
            bigger.arms[j] = arms[i]
            bigger.cohorts[j] = cohorts[i]
            bigger.inSRM[j] = inSRM[i]
        }
        bigger.count = count
        self = bigger
    }
}
