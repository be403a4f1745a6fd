/// How an `EventStore` is opened (SPEC §5, §8).
public struct EventStoreConfig: Sendable {
    /// The events root, normally `<data_dir>/events`.
    public var directory: String
    /// `instance_id`: names this process's segments and lock.
    public var instance: String
    /// SPEC §5's rotation size, 64 MiB.
    public static let segmentRotationBytes = 64 << 20
    /// The most a segment's committed bytes can reach: rotation is decided before a commit
    /// group is written, so a segment passes the rotation size only by the group that filled
    /// it, and a group is far below a segment. What a shipped segment may inflate to
    /// (`events export --from`), so a gzip bomb in a bucket stops there.
    public static let largestSegmentBytes = 2 * segmentRotationBytes
    /// Rotation size (`segmentRotationBytes`); smaller in tests.
    public var segmentMaxBytes: Int = segmentRotationBytes
    public var dedupWindowHours: Double = 48
    /// Rotation age, counted from a segment's first commit (`events_segment_max_seconds`).
    public var segmentMaxMillis: Int64 = 3_600_000
    /// Called on the writer thread with each fdatasync's duration, for `modeld_fsync_seconds`.
    public var fsyncObserver: (@Sendable (Double) -> Void)?
    /// Epoch milliseconds; injectable so tests can cross UTC midnight.
    public var clock: @Sendable () -> Int64 = { POSIX.nowMillis() }
    /// Test seam for write/fdatasync failures.
    var io: SegmentSyscalls = .system

    public init(directory: String, instance: String) {
        self.directory = directory
        self.instance = instance
    }
}

/// Why a store could not open. `instanceLocked` means another live process owns this
/// instance id: modeld exits 2 on it (SPEC §2).
public enum EventStoreOpenError: Error, CustomStringConvertible, Equatable {
    case invalidInstance(String)
    case instanceLocked(path: String)
    case io(String)

    public var description: String {
        switch self {
        case .invalidInstance(let s): "instance_id \"\(s)\" must be 1-64 characters [A-Za-z0-9._-]"
        case .instanceLocked(let path): "another process holds \(path) (same instance_id)"
        case .io(let message): "event store: \(message)"
        }
    }
}

/// The outcome of one submitted batch, delivered after its commit.
public enum EventSubmitResult: Sendable, Equatable {
    /// Stored durably; the number of events.
    case accepted(Int)
    /// This `(client_id, batch_id)` is already stored; nothing written.
    case duplicate
    /// Not stored (disk full, I/O error, store closed): answer 503 `unavailable`, Retry-After: 5.
    case unavailable(String)
}

/// Counters for /metrics (SPEC §4.4), monotonic since open.
public struct EventStoreCounters: Sendable, Equatable {
    public var batches = 0
    public var commits = 0
    public var eventsAccepted = 0
    public var eventsDuplicate = 0
    public var eventsRejected = 0
    public var failedCommits = 0
}
