import ChildProcesses
import Foundation

/// The shipped nginx front (shared by IntegrationTests and the RGW suite) (`scripts/nginx-cache-proxy.sh` rendering `deploy/nginx/modeld-cache.conf`)
/// as a child process on a free loopback port below the ephemeral range (ports there can be held
/// by other processes' outgoing connections). The script execs nginx in the foreground, so the
/// child's PID is the nginx master's: it is stopped by that PID, never by name.
public final class NginxProxy {
    public let prefix: URL
    public private(set) var port = 0
    public private(set) var process: ChildProcess.Running?

    public var url: String { "http://127.0.0.1:\(port)" }
    /// nginx's access log: `cache=… upstream=… upstream_status=…` per request.
    public var accessLog: String { (try? String(contentsOf: prefix.appendingPathComponent("logs/access.log"), encoding: .utf8)) ?? "" }
    public var errorLog: String { (try? String(contentsOf: prefix.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? "" }

    /// - Parameter upstreams: `HOST:PORT` of each modeld replica.
    public init(upstreams: [String]) throws {
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let candidates = [ProcessInfo.processInfo.environment["NGINX"], "/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        guard candidates.contains(where: { $0.map(FileManager.default.isExecutableFile(atPath:)) ?? false }) else {
            throw ChildProcessError.timedOut("nginx is not installed (Debian package `nginx`; `make test` installs it)")
        }
        var failures: [String] = []
        // Another process may take the port between the probe and nginx's bind: try a few.
        for _ in 0..<5 {
            let candidate = try Self.freeLoopbackPort()
            if try start(port: candidate, upstreams: upstreams) { port = candidate; return }
            let script = (try? String(contentsOf: prefix.appendingPathComponent("script-\(candidate).log"), encoding: .utf8)) ?? ""
            failures.append("port \(candidate): \(script.suffix(400)) \(errorLog.suffix(600))")
        }
        throw ChildProcessError.timedOut("nginx did not start:\n\(failures.joined(separator: "\n"))")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: prefix)
    }

    /// SIGTERM to the master (a fast shutdown; the workers go with it), bounded; SIGKILL after.
    public func stop() {
        guard let process, process.isRunning else { return }
        process.signal(SIGTERM)
        _ = try? process.wait(timeout: .seconds(10))  // past it the master is SIGKILLed
    }

    /// Starts the script; true once the port accepts connections, false if nginx exited first.
    private func start(port: Int, upstreams: [String]) throws -> Bool {
        // This file is Tests/Support/NginxProxySupport/NginxProxy.swift: four levels below the checkout.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("scripts/nginx-cache-proxy.sh")
        let output = prefix.appendingPathComponent("script-\(port).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let p = try ChildProcess.start("/bin/bash", [script.path, "--listen", "127.0.0.1:\(port)", "--prefix", prefix.path]
            + upstreams.flatMap { ["--upstream", $0] }, log: output.path)
        process = p
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if !p.isRunning { return false }
            if Self.accepts(port: port) { return true }
            usleep(20_000)
        }
        stop()
        return false
    }

    /// A port in [20000, 32768) that nothing listens on right now (bind probe, then closed).
    public static func freeLoopbackPort() throws -> Int {
        for _ in 0..<200 {
            let candidate = Int.random(in: 20000..<32768)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var addr = loopback(candidate)
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if rc == 0 { return candidate }
        }
        throw ChildProcessError.timedOut("no free loopback port below 32768")
    }

    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = loopback(port)
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    public static func loopback(_ port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }
}
