import ChildProcesses
import Foundation
import Testing

/// A modeld child process on 127.0.0.1 (`port` 0: ephemeral), its port read from its start-up
/// line within 20 s; its log is `<directory>/<name>-<8 hex>.log`, new at each start, so a
/// restart reads its own start-up line.
final class ModeldProcess {
    static let binary = URL(fileURLWithPath: MirrorCLITests.modelctl).deletingLastPathComponent().appendingPathComponent("modeld").path

    let running: ChildProcess.Running
    let port: Int
    let log: String

    init(directory: String, name: String, arguments: [String], environment: [String: String], port requested: Int = 0) throws {
        let log = directory + "/\(name)-\(UUID().uuidString.prefix(8)).log"
        self.log = log
        running = try ChildProcess.start(Self.binary, ["--listen", "127.0.0.1:\(requested)"] + arguments, environment: environment, log: log)
        var found = 0
        _ = try MirrorCLITests.poll(seconds: 20, every: 0.05) {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""   // not written yet
            guard let r = text.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression) else { return false }
            found = Int(text[r].split(separator: ":").last!) ?? 0
            return true
        }
        port = found
        try #require(port > 0, "modeld \(name) did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// SIGTERM (SPEC §8: drain, exit 0); the exit status.
    func stop() throws -> Int32 {
        running.signal(SIGTERM)
        return try running.wait(timeout: .seconds(30)).status
    }

    func killHard() throws {
        running.signal(SIGKILL)
        _ = try running.wait(timeout: .seconds(10))
    }
}
