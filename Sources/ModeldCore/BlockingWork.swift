import Dispatch

/// Where blocking disk work (fsync, publish lock, catalog writes) runs, off the event loops.
/// Routes complete their exchange from there; the engine hops back to the loop by itself.
///
/// Bounded: a concurrent Dispatch queue adds a thread whenever its running work blocks, so an
/// fsync storm (many uploads finishing on a slow disk) would grow threads without limit. At
/// most `width` items run at once; the rest wait in order on a serial admission queue, which
/// itself holds one thread while it waits for a free slot.
enum BlockingWork {
    static let width = 8

    private static let slots = DispatchSemaphore(value: width)
    private static let admission = DispatchQueue(label: "modeld.blocking-work.admission")
    private static let workers = DispatchQueue(label: "modeld.blocking-work", attributes: .concurrent)

    static func run(_ work: @escaping @Sendable () -> Void) {
        admission.async {
            slots.wait()
            workers.async {
                work()
                slots.signal()
            }
        }
    }
}
