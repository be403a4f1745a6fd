import Foundation
import Synchronization

/// `Tests/Fixtures/fake_admin_server.py` as a child process on an ephemeral port: a stand-in for
/// modeld's admin API until the real server exists. Killed when released.
final class FakeAdminServer {
    let url: String
    private let process: Process

    init(token: String, healthStatus: Int = 200) throws {
        // Outside the test target's directory, which SwiftPM would otherwise want declared as resources.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fake_admin_server.py")
        let output = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--token", token, "--health-status", String(healthStatus)]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        try process.run()
        // The script prints "PORT <n>" once it listens; that line, not a sleep, says it is ready.
        let portLine = (try? Self.firstLine(of: output.fileHandleForReading, within: .seconds(20))) ?? ""
        guard portLine.hasPrefix("PORT "), let port = Int(portLine.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ChildProcessError.timedOut("fake admin server did not print its port (got '\(portLine)')")
        }
        url = "http://127.0.0.1:\(port)"
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func firstLine(of handle: FileHandle, within timeout: Duration) throws -> String {
        let line = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var bytes: [UInt8] = []
            while let chunk = try? handle.read(upToCount: 1), let byte = chunk.first, byte != UInt8(ascii: "\n") {
                bytes.append(byte)
            }
            line.withLock { $0 = String(decoding: bytes, as: UTF8.self) }
            done.signal()
        }
        guard done.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) == .success else {
            throw ChildProcessError.timedOut("reading the first line")
        }
        return line.withLock { $0 } ?? ""
    }
}
