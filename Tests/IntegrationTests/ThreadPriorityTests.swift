import Foundation
import Testing

/// Background threads (access-log writer, garbage collection, re-signing, guard evaluator) run
/// below the event loops, so on a saturated machine they never preempt a request (issue #10:
/// p99; issue #11: /latest unchanged with a guard running).
@Suite struct ThreadPriorityTests {
    /// (thread name, nice) of every thread of `pid`, from /proc.
    static func threads(of pid: Int32) throws -> [(name: String, nice: Int)] {
        let dir = "/proc/\(pid)/task"
        return try FileManager.default.contentsOfDirectory(atPath: dir).compactMap { tid in
            let stat = try String(contentsOfFile: "\(dir)/\(tid)/stat", encoding: .utf8)
            // pid (comm) state … : fields after the closing parenthesis; nice is field 19 overall.
            guard let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return (String(stat[stat.index(after: stat.firstIndex(of: "(")!)..<close]), Int(fields[16]) ?? 0)
        }
    }

    @Test func backgroundThreadsRunBelowTheLoops() throws {
        let server = try ModeldServer()
        // The access-log writer and the GC loop at least at +5 and the guard evaluator at +15
        // (each lowers itself once running); the loops and the main thread untouched.
        var threads: [(name: String, nice: Int)] = []
        let lowered = try ModeldServer.eventually(within: 5) {
            threads = try Self.threads(of: server.pid)
            return threads.filter { $0.nice == 5 }.count >= 2 && threads.contains { $0.nice == 15 }
        }
        #expect(lowered, "\(threads)")
        #expect(threads.filter { $0.nice == 0 }.count >= 2, "\(threads)")
    }
}
