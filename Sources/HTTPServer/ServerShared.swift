import Synchronization

/// What all loops share: configuration, the route handler, and two atomics (open connections
/// across loops, drain flag).
final class ServerShared: Sendable {
    let config: ServerConfiguration
    let handler: any HTTPHandler
    let observer: (any ExchangeObserver)?
    private let open = Atomic<Int>(0)
    private let draining = Atomic<Bool>(false)

    init(config: ServerConfiguration, handler: any HTTPHandler, observer: (any ExchangeObserver)?) {
        self.config = config
        self.handler = handler
        self.observer = observer
    }

    var openConnections: Int { open.load(ordering: .relaxed) }
    var isDraining: Bool { draining.load(ordering: .relaxed) }
    func beginDrain() { draining.store(true, ordering: .relaxed) }

    /// Counts a new connection unless that would exceed `maxConnections`.
    func connectionOpened() -> Bool {
        if open.add(1, ordering: .relaxed).newValue > config.maxConnections {
            open.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func connectionClosed() { open.subtract(1, ordering: .relaxed) }
}
