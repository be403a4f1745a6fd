import Dispatch

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
