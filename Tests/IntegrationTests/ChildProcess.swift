import Foundation

/// What a finished child process left behind.
struct ProcessResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum ChildProcessError: Error, CustomStringConvertible {
    case timedOut(String)
    var description: String { switch self { case .timedOut(let what): "timed out: \(what)" } }
}

/// Runs executables to completion with a bounded wait.
enum ChildProcess {
    /// Runs `executable` and waits at most `timeout`; then it is killed and the test fails.
    /// The environment is this process's without `MODELD_*` (a developer's settings must not
    /// leak in), plus `environment`. Output goes to files, so a chatty child cannot block on a full pipe.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        directory: URL? = nil, timeout: Duration = .seconds(60)
    ) throws -> ProcessResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MODELD_") }
            .merging(environment) { _, new in new }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        let stdout = try FileHandle(forWritingTo: outURL)
        let stderr = try FileHandle(forWritingTo: errURL)
        // Closed however this returns: left open, two descriptors leaked per run, and past
        // FD_SETSIZE Foundation's select()-based socket manager corrupted memory (issue #19).
        defer {
            try? stdout.close()  // close(2) of a file only written by the child: nothing to lose
            try? stderr.close()
        }
        process.standardOutput = stdout
        process.standardError = stderr
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            throw ChildProcessError.timedOut("\(executable.lastPathComponent) \(arguments.joined(separator: " "))")
        }
        return ProcessResult(
            status: process.terminationStatus,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// Open descriptors of this process (the entries of /proc/self/fd, less the one listing it).
    static func openDescriptorCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
    }
}
