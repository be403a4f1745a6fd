import Dispatch

/// When a download's checkpoint is made durable (SPEC §13.2): once 64 MiB have arrived since the
/// last one, or 2 s have passed with new bytes, whichever comes first. A fast link pays one
/// fdatasync per 64 MiB (16 for 1 GiB, not one per few MiB); a slow one loses at most 2 s of
/// transfer to a crash. The syncer overlaps each with the next interval, so a crash re-fetches
/// at most two intervals.
///
/// Both run only as bytes arrive, so a stall would leave up to 64 MiB undurable for as long as
/// it lasts (an app killed on a train): the stall rule (v6) makes them durable once none has
/// arrived for 2 s, checked from the sink's ``ResponseSink/tick()``.
enum CheckpointPolicy {
    static let bytes: Int64 = 64 << 20
    static let interval: Duration = .seconds(2)

    static func isDue(bytes written: Int64, since elapsed: Duration) -> Bool {
        written >= bytes || (written > 0 && elapsed >= interval)
    }

    /// `undurable` bytes arrived since the last checkpoint and the link has been silent for `silence`.
    static func isStalled(undurable: Int64, silentFor silence: Duration) -> Bool {
        undurable > 0 && silence >= interval
    }
}

/// Makes a download's checkpoints durable off the receiving thread, so the next interval arrives
/// while the last ones are fsynced and recorded. Jobs run one at a time and in order; `submit`
/// waits for the job before it, so at most one interval is being made durable while the next
/// arrives (a crash re-fetches less than two intervals). A failure is kept and thrown by the
/// next `submit` or `drain`: after it no later checkpoint is recorded.
final class CheckpointSyncer: Sendable {
    private let queue = DispatchQueue(label: "ModeldClient.checkpoint")
    private let inFlight = DispatchGroup()
    private let failure = Locked<(any Error)?>(nil)

    /// Queues `job` once the job before it has finished.
    func submit(_ job: @escaping @Sendable () throws -> Void) throws {
        try drain()
        queue.async(group: inFlight) { [self] in
            do { try job() } catch { failure.withLock { $0 = $0 ?? error } }
        }
    }

    /// Waits for the job in flight; throws the first failure of any job.
    func drain() throws {
        inFlight.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
