import CLinuxShims
import Glibc
import HTTPWire

/// One thread, one epoll instance, one SO_REUSEPORT listener, and the connections it accepted.
/// Sockets are registered once, edge-triggered for both directions, so interest never changes
/// (no epoll_ctl per request). A coarse sweep once a second enforces the timeouts.
// @unchecked: all `var` state is touched only on this loop's thread (set in `run`); other threads
// only call `post`, which goes through the Mutex-guarded mailbox.
final class EventLoop: @unchecked Sendable {
    let config: ServerConfiguration
    let handler: any HTTPHandler
    let observer: (any ExchangeObserver)?
    private let shared: ServerShared
    private let listener: Listener
    private let epfd: Int32
    private let mailbox: Mailbox

    let headerTimeout: Int64, idleTimeout: Int64, bodyTimeout: Int64
    private(set) var now: Int64 = Clock.monotonicNanos()
    private(set) var date = DateCache()
    let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: OutboundQueue.maxIovecs)

    private var connections: [Connection?] = []
    private var events = [epoll_event](repeating: epoll_event(), count: 256)
    private var local: [LoopMessage] = [], batch: [LoopMessage] = []
    private var turns: [Connection] = [], turnBatch: [Connection] = []
    private var nextSweep: Int64 = 0
    private var running = true
    private var spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)

    init(listener: Listener, shared: ServerShared) throws(ServerError) {
        self.config = shared.config
        self.handler = shared.handler
        self.observer = shared.observer
        self.shared = shared
        self.listener = listener
        headerTimeout = Clock.nanos(config.headerTimeout)
        idleTimeout = Clock.nanos(config.idleTimeout)
        bodyTimeout = Clock.nanos(config.bodyTimeout)
        mailbox = try Mailbox()
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        if epfd < 0 { throw .system("epoll_create1", errno) }
        try register(listener.fd, EPOLLIN.rawValue)
        try register(mailbox.wakeFD, EPOLLIN.rawValue | EPOLLET.rawValue)
    }

    deinit {
        iovecs.deallocate()
    }

    var isDraining: Bool { shared.isDraining }

    /// From any thread. On the loop's own thread the message waits until the current event is
    /// handled, which keeps routes that complete inside `handle` from re-entering the connection.
    func post(_ message: LoopMessage) {
        if modeld_current_loop() == Unmanaged.passUnretained(self).toOpaque() {
            local.append(message)
        } else {
            mailbox.post(message)
        }
    }

    func scheduleTurn(_ c: Connection) {
        guard !c.isQueuedForTurn else { return }
        c.isQueuedForTurn = true
        turns.append(c)
    }

    func remove(_ c: Connection) {
        connections[Int(c.fd)] = nil
        shared.connectionClosed()
    }

    func run() {
        modeld_set_current_loop(Unmanaged.passUnretained(self).toOpaque())
        while running {
            let timeout: Int32 = local.isEmpty && turns.isEmpty ? 1000 : 0
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epfd, $0.baseAddress!, Int32($0.count), timeout) }
            tick()
            if n > 0 {
                for i in 0..<Int(n) { dispatch(events[i]) }
                if Int(n) == events.count && events.count < 4096 {
                    events.append(contentsOf: repeatElement(epoll_event(), count: events.count))
                }
            }
            runLocalMessages()
            runTurns()
            if now >= nextSweep { sweep() }
        }
        shutDown()
    }

    private func tick() {
        now = Clock.monotonicNanos()
        date.update(epochSeconds: Clock.epochSeconds())
    }

    private func dispatch(_ event: epoll_event) {
        let fd = event.data.fd
        if fd == listener.fd { acceptAll(); return }
        if fd == mailbox.wakeFD {
            mailbox.drain(into: &batch)
            handle(&batch)
            return
        }
        guard Int(fd) < connections.count, let c = connections[Int(fd)] else { return }
        let e = event.events
        c.onEvent(readable: e & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                  hangUp: e & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0)
    }

    /// Takes every pending connection; over `maxConnections` they are closed at once.
    private func acceptAll() {
        for _ in 0..<256 {
            guard let (fd, peer) = listener.accept() else {
                if errno == EMFILE || errno == ENFILE { shedOneConnection() }
                return
            }
            guard shared.connectionOpened() else {
                Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let c = Connection(fd: fd, peer: peer, loop: self)
            if Int(fd) >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: max(Int(fd) + 1, connections.count * 2) - connections.count))
            }
            connections[Int(fd)] = c
            do {
                try register(fd, EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue)
            } catch {
                c.close()
            }
        }
    }

    /// Out of descriptors: the level-triggered listener would wake us forever. Give back the spare
    /// descriptor, accept one pending connection, close it, and take the spare again.
    private func shedOneConnection() {
        Glibc.close(spareFD)
        if let (fd, _) = listener.accept() { Glibc.close(fd) }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    private func runLocalMessages() {
        while !local.isEmpty {
            swap(&local, &batch)
            handle(&batch)
        }
    }

    private func handle(_ messages: inout [LoopMessage]) {
        for m in messages {
            switch m {
            case .complete(let ex, let response): ex.connection.complete(response, for: ex)
            case .resume(let ex): ex.connection.resume(ex)
            case .stop: running = false
            }
        }
        messages.removeAll(keepingCapacity: true)
    }

    private func runTurns() {
        guard !turns.isEmpty else { return }
        swap(&turns, &turnBatch)
        for c in turnBatch {
            c.isQueuedForTurn = false
            c.drive()
        }
        turnBatch.removeAll(keepingCapacity: true)
    }

    /// Timeouts, and during drain the idle keep-alive connections.
    private func sweep() {
        nextSweep = now + 1_000_000_000
        let draining = shared.isDraining
        for case let c? in connections where now >= c.readDeadline || now >= c.writeDeadline || (draining && c.isIdle(now: now)) {
            c.timeOut()
        }
    }

    /// Closes everything the loop owns; called on its thread at exit (or instead of ever running).
    func shutDown() {
        mailbox.close()
        listener.close()
        Glibc.close(spareFD)
        for case let c? in connections { c.close() }
        Glibc.close(epfd)
        modeld_set_current_loop(nil)
    }

    private func register(_ fd: Int32, _ events: UInt32) throws(ServerError) {
        var ev = epoll_event()
        ev.events = events
        ev.data.fd = fd
        if epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0 { throw .system("epoll_ctl", errno) }
    }
}
