import ChildProcesses
import Foundation
import NginxProxySupport

/// nginx serving a directory as a plain static host (a bucket stand-in for SPEC §13's static
/// mode), on a free loopback port chosen before anything is written, so `public_base_url` can
/// name it. The master runs in the foreground as our child and is stopped by its PID.
final class NginxStatic {
    let root: URL
    let port: Int
    private let prefix: URL
    private var process: ChildProcess.Running?

    var url: String { "http://127.0.0.1:\(port)" }

    init() throws {
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-nginx-static-\(UUID().uuidString.prefix(8))")
        root = prefix.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        port = try NginxProxy.freeLoopbackPort()
    }

    func start() throws {
        let conf = prefix.appendingPathComponent("nginx.conf")
        try """
        daemon off; worker_processes 1; pid \(prefix.path)/nginx.pid; error_log \(prefix.path)/logs/error.log;
        events { worker_connections 64; }
        http {
          access_log \(prefix.path)/logs/access.log;
          types { application/json json; } default_type application/octet-stream;
          client_body_temp_path \(prefix.path)/tmp; proxy_temp_path \(prefix.path)/tmp; fastcgi_temp_path \(prefix.path)/tmp;
          uwsgi_temp_path \(prefix.path)/tmp; scgi_temp_path \(prefix.path)/tmp;
          server { listen 127.0.0.1:\(port); root \(root.path); }
        }
        """.write(to: conf, atomically: true, encoding: .utf8)
        let p = try ChildProcess.start("/usr/sbin/nginx", ["-p", prefix.path, "-c", conf.path])
        process = p
        guard ModeldServer.eventually(within: 15, { !p.isRunning || NginxProxy.accepts(port: port) }), p.isRunning else {
            let log = (try? String(contentsOf: prefix.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
            throw ChildProcessError.timedOut("nginx did not start: \(log.suffix(600))")
        }
    }

    deinit {
        if let p = process {
            p.signal(SIGTERM)
            _ = try? p.wait(timeout: .seconds(10))  // past it the master is SIGKILLed
        }
        try? FileManager.default.removeItem(at: prefix)
    }
}
