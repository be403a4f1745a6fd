import Foundation

/// Where an update is (SPEC §13.1), in this order; an update ends in `installed` or `failed`.
public enum UpdatePhase: Sendable, Equatable {
    /// Asking the server (or static host) and verifying its answer.
    case checking
    /// A full download: bytes of the release's file on disk, of its size (a resume starts at the
    /// partial's size). A delta update (SPEC §14): bytes fetched, of the bytes its plan fetches
    /// (the chunks no cached model has; a resumed build counts what it fetched before). A delta
    /// that falls back to the full download shows no new bytes until the download passes them.
    case downloading(bytes: Int64, total: Int64)
    /// The transfer is over; size and SHA-256 are being checked.
    case verifying
    /// Staging, unpacking or compiling the verified file before activation.
    case preparing
    /// The update finished: the active model is the one its ``UpdateResult`` names (new, or
    /// unchanged when up to date, when nothing is published, or when the release was left
    /// `available` by ``DownloadConditions``).
    case installed
    /// The update failed (or was cancelled); the message names why. Nothing active changed.
    case failed(String)

    /// The phase's name as `modeld-client update --progress` prints it.
    public var name: String {
        switch self {
        case .checking: "checking"
        case .downloading: "downloading"
        case .verifying: "verifying"
        case .preparing: "preparing"
        case .installed: "installed"
        case .failed: "failed"
        }
    }

    var rank: Int {
        switch self {
        case .checking: 0
        case .downloading: 1
        case .verifying: 2
        case .preparing: 3
        case .installed, .failed: 4
        }
    }

    /// Whether `self` may follow `previous`: a later phase, or more bytes of the download.
    func advances(from previous: UpdatePhase?) -> Bool {
        guard let previous else { return true }
        if case .downloading(let bytes, _) = self, case .downloading(let before, _) = previous { return bytes > before }
        return rank > previous.rank
    }
}

/// Hands one update's phases to every caller waiting on it (they share the update), in order
/// and never backwards: a report that does not advance is dropped, so a download restarted from
/// zero (a 200 to a range) shows no progress until it passes what was shown before. Observers
/// run under the lock, on the reporting thread: they must be quick and must not call back.
final class ProgressBroadcaster: Sendable {
    typealias Observer = @Sendable (UpdatePhase) -> Void
    private struct State {
        var observers: [Int: Observer] = [:]
        var nextToken = 0
        var last: UpdatePhase?
    }
    private let state = Locked(State())

    /// Forgets the previous update's phases (a new update starts).
    func reset() { state.withLock { $0.last = nil } }

    /// Adds `observer`; it first sees the current phase of an update already running.
    func add(_ observer: @escaping Observer) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.observers[state.nextToken] = observer
            if let last = state.last { observer(last) }
            return state.nextToken
        }
    }

    func remove(_ token: Int) { _ = state.withLock { $0.observers.removeValue(forKey: token) } }

    func report(_ phase: UpdatePhase) {
        state.withLock { state in
            guard phase.advances(from: state.last) else { return }
            state.last = phase
            for observer in state.observers.values { observer(phase) }
        }
    }
}

/// One operation that many callers await (single flight). It is cancelled once every caller
/// waiting on it has been cancelled; while another caller still waits, it goes on.
final class SharedFlight<Value: Sendable>: Sendable {
    private let task: Task<Value, any Error>
    private let waiting = Locked(0)

    init(_ operation: @escaping @Sendable () async throws -> Value) { task = Task(operation: operation) }

    func value() async throws -> Value {
        waiting.withLock { $0 += 1 }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            if waiting.withLock({ waiting in
                waiting -= 1
                return waiting
            }) == 0 { task.cancel() }
        }
    }
}
