import EventShipping
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §18 `events_ship`: this instance ships its own sealed segments in-process, with the
/// code of `modelctl events ship --watch` (EventShipper: §9.1's keys, `If-None-Match: *`,
/// `data/shipped.jsonl`). A pass runs every `intervalSeconds`; a failed pass is logged, counted
/// and retried at the next (the ledger records only finished uploads, so nothing is skipped).
/// At shutdown, once the event store is closed (its open segment sealed), `finish` runs one
/// last pass within the time left of `drain_seconds`.
final class EventShippingService: Sendable {
    private let loop: BackgroundLoop
    private let finishing = Flag()
    /// Written once the last pass ended, so `finish` waits for it with a timeout.
    private let done: (read: Int32, write: Int32)

    init(shipper: EventShipper, intervalSeconds: Int, metrics: Metrics) {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        let done = (fds[0], fds[1])
        self.done = done
        let finishing = self.finishing
        let log = Logger(label: "modeld.ship")
        loop = BackgroundLoop { _ in
            let last = finishing.value.withLock { $0 }
            do throws(ShipFailure) {
                let summary = try shipper.run()
                if summary.shipped > 0 {
                    metrics.recordSegmentsShipped(summary.shipped)
                    log.info("shipped \(summary.shipped) segment(s), \(summary.bytes) bytes")
                }
            } catch {
                metrics.recordShipFailure()
                log.error("shipping events: \(error.message)")
            }
            if last {
                var one: UInt8 = 1
                _ = write(done.1, &one, 1)
                return -1   // waits for the process to end
            }
            return Int32(clamping: intervalSeconds * 1000)
        }
    }

    /// Shared with the loop's closure, which is made before `self` exists.
    private final class Flag: Sendable {
        let value = Mutex(false)
    }

    deinit {
        close(done.read)
        close(done.write)
    }

    func start() { loop.start() }

    /// One last pass (after `EventStore.close()`), waited for at most `seconds`; false when it
    /// did not end in time — what it did not ship, a restart with the same data/ ships.
    func finish(within seconds: Double) -> Bool {
        finishing.value.withLock { $0 = true }
        loop.poke()
        var p = pollfd(fd: done.read, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, Int32(clamping: Int(max(0, seconds) * 1000))) > 0
    }
}
