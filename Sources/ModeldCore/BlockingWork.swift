import Dispatch

/// Where blocking disk work (fsync, publish lock, catalog writes) runs, off the event loops.
/// Routes complete their exchange from there; the engine hops back to the loop by itself.
enum BlockingWork {
    private static let queue = DispatchQueue(label: "modeld.blocking-work", attributes: .concurrent)

    static func run(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
