import ChildProcesses
import Foundation

/// `Tests/Fixtures/fake_admin_server.py` as a child process on an ephemeral port: a stand-in for
/// modeld's admin API until the real server exists. Killed when released.
final class FakeAdminServer {
    let url: String
    private let process: ChildProcess.Running
    private let log: URL

    init(token: String, healthStatus: Int = 200) throws {
        // Outside the test target's directory, which SwiftPM would otherwise want declared as resources.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fake_admin_server.py")
        log = FileManager.default.temporaryDirectory.appendingPathComponent("fake-admin-\(UUID().uuidString).log")
        process = try ChildProcess.start("/usr/bin/env", ["python3", script.path, "--token", token, "--health-status", String(healthStatus)],
                                         log: log.path)
        // The script prints "PORT <n>" once it listens; that line, not a sleep, says it is ready.
        var portLine = ""
        _ = ModeldServer.eventually(within: 20) { [log, process] in
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            portLine = text.split(separator: "\n").first { $0.hasPrefix("PORT ") }.map(String.init) ?? ""
            return !portLine.isEmpty || !process.isRunning
        }
        guard let port = Int(portLine.dropFirst(5)) else {
            process.signal(SIGKILL)
            _ = try? process.wait(timeout: .seconds(10))
            throw ChildProcessError.timedOut("fake admin server did not print its port (log: \((try? String(contentsOf: log, encoding: .utf8)) ?? ""))")
        }
        url = "http://127.0.0.1:\(port)"
    }

    deinit {
        process.signal(SIGKILL)
        _ = try? process.wait(timeout: .seconds(10))  // SIGKILLed: it cannot outlive the wait
        try? FileManager.default.removeItem(at: log)
    }
}
