import ChildProcesses
import Foundation
import Testing

/// The harness itself: running children must not leak descriptors (issue #19: 2 per run, which
/// took the test process past FD_SETSIZE and made later launches flaky).
struct ChildProcessTests {
    @Test func noDescriptorOfAChildsOutputStaysOpen_over200Runs() throws {
        for _ in 0..<200 {
            let r = try ChildProcess.run(URL(fileURLWithPath: "/bin/echo"), ["x"])
            #expect(r.status == 0 && r.stdout == "x\n")
        }
        // Counted by target, not in total: other suites run in parallel and open their own.
        let leaked = ChildProcess.openDescriptorTargets().filter { $0.contains("/child-\(getpid())-") }
        #expect(leaked.isEmpty, "\(leaked.count) descriptors of children's output files left open")
    }

    @Test func environment_dropsTheDevelopersModeldAndAWSSettings_keepsTheRest() throws {
        let base = ["MODELD_ADMIN_TOKEN": "dev", "AWS_SECRET_ACCESS_KEY": "dev", "PATH": "/usr/bin", "AWSOME": "kept"]
        let child = ChildEnvironment.inherited(["MODELD_INSTANCE_ID": "given"], from: base)
        #expect(child == ["PATH": "/usr/bin", "AWSOME": "kept", "MODELD_INSTANCE_ID": "given"])
        // And it is what a child gets.
        let r = try ChildProcess.run("/usr/bin/env", [], environment: ["MODELD_GIVEN": "1"])
        #expect(r.stdout.split(separator: "\n").contains("MODELD_GIVEN=1"))
    }

    @Test func aChildPastItsTimeout_isKilled_andTheRunThrows() throws {
        let started = ContinuousClock.now
        #expect(throws: ChildProcessError.self) { try ChildProcess.run("/bin/sleep", ["30"], timeout: .milliseconds(200)) }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// A child that outlives its wait is named with its threads' states: a stopped one is `T`,
    /// as one stuck in the kernel would be `D` and the function it waits in.
    @Test func aTimedOutWait_namesTheThreadsStates() throws {
        let child = try ChildProcess.start("/bin/sleep", ["30"])
        child.signal(SIGSTOP)
        #expect(ModeldServer.eventually(within: 10) { ChildProcess.Running.threadStates(child.pid).hasPrefix("0 S, T") })
        do {
            try child.wait(timeout: .milliseconds(100))
            Issue.record("a stopped child finished its wait")
        } catch ChildProcessError.timedOut(let what) {
            #expect(what.contains("threads when the wait ended: 0 S, T"), "\(what)")
        }
        #expect(!child.isRunning)
        #expect(ChildProcess.Running.threadStates(child.pid) == "none left")
    }

    @Test func aSignalledChild_reportsMinusTheSignal() throws {
        let child = try ChildProcess.start("/bin/sleep", ["30"])
        #expect(child.isRunning)
        child.signal(SIGTERM)
        #expect(try child.wait(timeout: .seconds(10)).status == -SIGTERM)
        #expect(!child.isRunning)
    }
}
