import Foundation
import Testing

/// The harness itself: running children must not leak descriptors (issue #19: 2 per run, which
/// took the test process past FD_SETSIZE and made later launches flaky).
struct ChildProcessTests {
    @Test func descriptorCountStaysFlatOver200Runs() throws {
        // A few runs first: Foundation opens its own long-lived descriptors on first use.
        for _ in 0..<5 { _ = try ChildProcess.run(URL(fileURLWithPath: "/bin/true"), []) }
        let before = ChildProcess.openDescriptorCount()
        for _ in 0..<200 {
            let r = try ChildProcess.run(URL(fileURLWithPath: "/bin/echo"), ["x"])
            #expect(r.status == 0 && r.stdout == "x\n")
        }
        let after = ChildProcess.openDescriptorCount()
        // Other suites run in parallel and open their own; 200 runs leaking 2 each would be +400.
        #expect(after - before < 40, "\(before) open descriptors before 200 runs, \(after) after")
    }
}
