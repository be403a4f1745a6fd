/// The `(client_id, batch_id)` keys stored within the dedup window, with the time each was
/// stored (for keys loaded from a segment index: that segment's newest `received_at`, which
/// can only keep a key slightly longer than the window, never shorter).
struct DedupIndex {
    let windowMillis: Int64
    private var storedAt: [DedupKey: Int64] = [:]

    init(windowHours: Double) { windowMillis = Int64(windowHours * 3_600_000) }

    var count: Int { storedAt.count }

    func contains(_ key: DedupKey, now: Int64) -> Bool {
        guard let t = storedAt[key] else { return false }
        return t >= now - windowMillis
    }

    mutating func insert(_ key: DedupKey, at time: Int64) {
        if let t = storedAt[key], t >= time { return }
        storedAt[key] = time
    }

    mutating func prune(now: Int64) {
        let oldest = now - windowMillis
        storedAt = storedAt.filter { $0.value >= oldest }
    }
}
