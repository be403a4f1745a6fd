import Foundation
import Testing

/// Background threads (access-log writer, garbage collection, re-signing, guard evaluator) run
/// below the event loops, so on a saturated machine they never preempt a request (issue #10:
/// p99; issue #11: /latest unchanged with a guard running).
@Suite struct ThreadPriorityTests {
    /// SCHED_OTHER and SCHED_IDLE, as /proc reports a thread's policy.
    static let other = 0, idle = 5

    /// Name, nice (field 19) and scheduling policy (field 41) of every thread of `pid`, from
    /// /proc/PID/task/TID/stat.
    static func threads(of pid: Int32) throws -> [(name: String, nice: Int, policy: Int)] {
        let dir = "/proc/\(pid)/task"
        return try FileManager.default.contentsOfDirectory(atPath: dir).compactMap { tid in
            let stat = try String(contentsOfFile: "\(dir)/\(tid)/stat", encoding: .utf8)
            // pid (comm) state …: the fields after the closing parenthesis start at field 3.
            guard let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return (String(stat[stat.index(after: stat.firstIndex(of: "(")!)..<close]), Int(fields[19 - 3]) ?? 0, Int(fields[41 - 3]) ?? -1)
        }
    }

    @Test func backgroundThreadsRunBelowTheLoops_guardEvaluatorOnlyOnIdleCores() throws {
        let server = try ModeldServer()
        // The access-log writer and the GC loop at least at nice +5, the guard evaluator alone
        // under SCHED_IDLE (each lowers itself once running); the loops and the main thread untouched.
        var threads: [(name: String, nice: Int, policy: Int)] = []
        let lowered = try ModeldServer.eventually(within: 5) {
            threads = try Self.threads(of: server.pid)
            return threads.filter { $0.nice == 5 && $0.policy == Self.other }.count >= 2
                && threads.filter { $0.policy == Self.idle }.count == 1
        }
        #expect(lowered, "\(threads)")
        #expect(threads.filter { $0.nice == 0 && $0.policy == Self.other }.count >= 2, "\(threads)")
    }
}
