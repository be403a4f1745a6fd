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
        let task = Task { try await body() }
        let received = Locked<Int32?>(nil)
        let sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)  // the dispatch source sees it instead of the default action
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                received.withLock { $0 = $0 ?? signalNumber }
                task.cancel()
            }
            source.resume()
            return source
        }
        let result = await task.result
        for source in sources { source.cancel() }
        if let signalNumber = received.withLock({ $0 }) {
            printError("modeld-client: interrupted by signal \(signalNumber); the partial download is kept for the next update")
            exit(128 + signalNumber)
        }
        return try result.get()
    }
}

/// SIGINT and SIGTERM taken over from the moment it exists, so one that arrives early is not lost:
/// ``wait()`` returns at the first (`launch --hold`).
final class TerminationSignal: @unchecked Sendable {  // sources: set once in init
    private let state = Locked<(received: Bool, waiting: CheckedContinuation<Void, Never>?)>((false, nil))
    private var sources: [any DispatchSourceSignal] = []

    init() {
        sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)  // the dispatch source sees it instead of the default action
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [state] in
                state.withLock { s in
                    s.received = true
                    s.waiting?.resume()
                    s.waiting = nil
                }
            }
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    func wait() async {
        await withCheckedContinuation { continuation in
            state.withLock { s in if s.received { continuation.resume() } else { s.waiting = continuation } }
        }
    }
}
