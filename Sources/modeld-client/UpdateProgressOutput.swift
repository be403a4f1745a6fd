import Foundation
import ModeldClient

/// `update --progress` (SPEC §13.1): one stderr line per phase change, and at most one a second
/// while downloading; with `--json`, `{"phase":…,"bytes":…,"total":…}` lines.
final class ProgressPrinter: Sendable {
    private let json: Bool
    private let last = Locked<(name: String, at: Date)?>(nil)

    init(json: Bool) { self.json = json }

    /// For ``ModelChannel/update(progress:)``.
    var observer: @Sendable (UpdatePhase) -> Void { { self.observe($0) } }

    func observe(_ phase: UpdatePhase) {
        let now = Date()
        let due = last.withLock { last -> Bool in
            if let last, last.name == phase.name, now.timeIntervalSince(last.at) < 1 { return false }
            last = (phase.name, now)
            return true
        }
        if due { printError(line(phase)) }
    }

    func line(_ phase: UpdatePhase) -> String {
        switch (phase, json) {
        case (.downloading(let bytes, let total), true): #"{"phase":"downloading","bytes":\#(bytes),"total":\#(total)}"#
        case (_, true): #"{"phase":"\#(phase.name)","bytes":null,"total":null}"#
        case (.downloading(let bytes, let total), false):
            "downloading \(bytes) of \(total) bytes (\(total > 0 ? bytes * 100 / total : 100) %)"
        case (.failed(let reason), false): "failed: \(reason)"
        default: phase.name
        }
    }
}

/// SIGINT and SIGTERM during a long command: the work is cancelled (a download keeps its
/// partial file, checkpointed), and once it has stopped the process exits 128 + the signal
/// (130, 143) as a shell expects of an interrupted command.
enum Interruption {
    static func exitOnSignal<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let termination = TerminationSignal()  // before the work starts, so no signal is missed
        let task = Task { try await body() }
        let received = Locked<Int32?>(nil)
        Task {
            let signalNumber = await termination.wait()
            received.withLock { $0 = signalNumber }
            task.cancel()
        }
        let result = await task.result
        if let signalNumber = received.withLock({ $0 }) {
            printError("modeld-client: interrupted by signal \(signalNumber); the partial download is kept for the next update")
            exit(128 + signalNumber)
        }
        return try result.get()
    }
}

/// The pipe the handler below signals through: write(2) is async-signal-safe, resuming a
/// continuation is not.
private let terminationPipe: (read: Int32, write: Int32) = {
    var fds: [Int32] = [-1, -1]
    precondition(pipe(&fds) == 0, "pipe: \(errno)")
    return (fds[0], fds[1])
}()

/// SIGINT and SIGTERM taken over from the moment it exists, so one that arrives early is not lost:
/// ``wait()`` returns the first. A plain handler installed here, not a dispatch source: a source
/// registers later on its queue, and a signal in between was ignored.
final class TerminationSignal: Sendable {
    init() {
        _ = terminationPipe  // created before a handler can write to it
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { signalNumber in
                var byte = UInt8(truncatingIfNeeded: signalNumber)
                _ = write(terminationPipe.write, &byte, 1)
            }
        }
    }

    /// The number of the first signal received.
    @discardableResult
    func wait() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while read(terminationPipe.read, &byte, 1) < 0 && errno == EINTR {}
                continuation.resume(returning: Int32(byte))
            }
        }
    }
}
