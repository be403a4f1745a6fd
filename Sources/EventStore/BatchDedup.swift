/// The read-side dedup of SPEC §5: the first copy of a `(client_id, batch_id)` batch read counts,
/// every later copy (a retry another replica stored, a segment read from two places) is dropped.
/// A batch's events are consecutive lines of one segment, so the ids are compared with the
/// previous line's and hashed (SHA-256) once per batch; a repeated copy restarts at `seq` 0. Shared by `events export`/`stats` and
/// the guard's tail, so both count the same events.
public struct BatchDedup {
    private var seen = Set<DedupKey>()
    private var previous: (clientID: String?, batchID: String)?
    private var repeating = false

    public init() {}

    /// Call before the first line of each segment.
    public mutating func startSegment() {
        previous = nil
        repeating = false
    }

    /// Whether the event of this batch with this `seq` belongs to a batch already counted.
    public mutating func isRepeat(clientID: String?, batchID: String, seq: Int?) -> Bool {
        if seq == 0 || previous?.batchID != batchID || previous?.clientID != clientID {
            repeating = !seen.insert(DedupKey(clientID: clientID, batchID: batchID)).inserted
            previous = (clientID, batchID)
        }
        return repeating
    }
}
