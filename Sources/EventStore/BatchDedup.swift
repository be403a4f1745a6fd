/// The read-side dedup of SPEC §5: the first copy of a `(client_id, batch_id)` batch read counts,
/// every later copy (a retry another replica stored, a segment read from two places) is dropped.
/// A batch's events are consecutive lines of one segment, so the ids are compared with the
/// previous line's and hashed (SHA-256) once per batch; a repeated copy restarts at `seq` 0. Shared by `events export`/`stats` and
/// the guard's tail, so both count the same events.
///
/// Keys are kept per UTC day of the segment their first copy was read from. Unbounded (`export`,
/// `stats`: one pass over what was asked) every day is kept; with `retainedDays` (the guard's
/// tail, which runs as long as a guard does) the days older than the newest day read minus
/// `retainedDays` are dropped, so its memory follows the dedup window's traffic, not the
/// guard's age.
public struct BatchDedup {
    private var days: [(day: Int64, keys: Set<DedupKey>)] = []   // ascending by day
    private let retainedDays: Int64?
    private var current = 0   // index in `days` of the segment being read
    private var previous: (clientID: String?, batchID: String)?
    private var repeating = false

    public init() { retainedDays = nil }

    /// Keeps keys for at least `windowHours` (SPEC §5's `dedup_window_hours`): a copy read from a
    /// segment of a day within that many hours' worth of days after the first copy's day is
    /// still dropped.
    public init(windowHours: Double) {
        retainedDays = Int64((max(windowHours, 0) / 24).rounded(.up))
    }

    /// Call before the first line of each segment, with the UTC day directory it is in
    /// (`YYYY-MM-DD`); unbounded, or without a day, every key is kept as one day's.
    public mutating func startSegment(day name: String? = nil) {
        previous = nil
        repeating = false
        let day = retainedDays == nil ? 0 : name.flatMap { EventTime.parseDay($0) }.map { $0 / 86_400_000 } ?? 0
        if let retainedDays, let newest = days.last?.day, day > newest {
            days.removeAll { $0.day < day - retainedDays }
        }
        if let i = days.firstIndex(where: { $0.day == day }) {
            current = i
        } else {
            // A day read late (an older segment shipped late) goes in order; it is dropped at the
            // next new day if it is out of the window.
            current = days.firstIndex(where: { $0.day > day }) ?? days.count
            days.insert((day, []), at: current)
        }
    }

    /// Whether the event of this batch with this `seq` belongs to a batch already counted.
    public mutating func isRepeat(clientID: String?, batchID: String, seq: Int?) -> Bool {
        if seq == 0 || previous?.batchID != batchID || previous?.clientID != clientID {
            if days.isEmpty { startSegment() }
            let key = DedupKey(clientID: clientID, batchID: batchID)
            repeating = days.contains { $0.keys.contains(key) }
            if !repeating { days[current].keys.insert(key) }
            previous = (clientID, batchID)
        }
        return repeating
    }

    /// Keys kept, over all days.
    public var count: Int { days.reduce(0) { $0 + $1.keys.count } }
}
