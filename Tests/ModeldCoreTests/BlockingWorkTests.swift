import Dispatch
import Synchronization
import Testing
@testable import ModeldCore

/// BlockingWork never runs more than its width at once, however many items block, and runs
/// every item (issue 35 item 8: an fsync storm must not grow threads without bound).
@Suite struct BlockingWorkTests {
    @Test func atMostWidthRunAtOnceAndAllRun() {
        let total = BlockingWork.width * 3
        let state = Mutex((running: 0, peak: 0, done: 0))
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<total {
            BlockingWork.run {
                state.withLock { $0.running += 1; $0.peak = max($0.peak, $0.running) }
                started.signal()
                release.wait()   // blocks like an fsync on a slow disk
                state.withLock { $0.running -= 1; $0.done += 1 }
                finished.signal()
            }
        }
        // The first `width` start; the next would only start once one of them finished.
        for _ in 0..<BlockingWork.width {
            #expect(started.wait(timeout: .now() + 10) == .success)
        }
        #expect(started.wait(timeout: .now() + .milliseconds(300)) == .timedOut)
        #expect(state.withLock { $0.running } == BlockingWork.width)
        for _ in 0..<total { release.signal() }
        for _ in 0..<total {
            #expect(finished.wait(timeout: .now() + 10) == .success)
        }
        let end = state.withLock { $0 }
        #expect(end.peak == BlockingWork.width)
        #expect(end.done == total)
    }
}
