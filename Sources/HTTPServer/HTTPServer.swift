import Glibc
import Synchronization

/// The HTTP/1.1 server: `workers` event-loop threads, each with its own SO_REUSEPORT listener.
public final class HTTPServer: Sendable {
    private let shared: ServerShared
    private let running = Mutex<(loops: [EventLoop], threads: [LoopThread])>(([], []))

    public init(configuration: ServerConfiguration, handler: any HTTPHandler, observer: (any ExchangeObserver)? = nil) {
        shared = ServerShared(config: configuration, handler: handler, observer: observer)
    }

    /// Binds, starts the loops, and returns the bound port (useful with port 0).
    public func start() throws(ServerError) -> Int {
        signal(SIGPIPE, SIG_IGN)
        let config = shared.config
        Self.raiseDescriptorLimit(toFit: config.maxConnections)
        let workers = config.workers > 0 ? config.workers : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var loops: [EventLoop] = []
        var port = config.port
        do throws(ServerError) {
            for _ in 0..<workers {
                let (listener, bound) = try Listener.bind(host: config.host, port: port)
                port = bound
                do throws(ServerError) {
                    loops.append(try EventLoop(listener: listener, shared: shared))
                } catch {
                    listener.close()
                    throw error
                }
            }
        } catch {
            loops.forEach { $0.shutDown() }  // never started: release their sockets here
            throw error
        }
        var threads: [LoopThread] = []
        for loop in loops {
            threads.append(try LoopThread { loop.run() })
        }
        running.withLock { $0 = (loops, threads) }
        return port
    }

    /// `max_connections` sockets plus files being sent need more than the usual soft limit of 1024
    /// descriptors; raise it as far as the hard limit allows (never lower it).
    private static func raiseDescriptorLimit(toFit connections: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(connections) * 2 + 1024
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Responses from now on carry `Connection: close`; idle keep-alive connections are closed.
    public func beginDrain() { shared.beginDrain() }

    public var isDraining: Bool { shared.isDraining }

    public var openConnections: Int { shared.openConnections }

    /// Drains for up to `seconds` (less once no connection is left), then cuts what remains,
    /// closes the listeners and joins the loop threads.
    public func stop(after seconds: Double) {
        beginDrain()
        let deadline = Clock.monotonicNanos() + Clock.nanos(seconds)
        while shared.openConnections > 0 && Clock.monotonicNanos() < deadline {
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
        let (loops, threads) = running.withLock { state in
            defer { state = ([], []) }
            return state
        }
        for loop in loops { loop.post(.stop) }
        for thread in threads { thread.join() }
    }
}
