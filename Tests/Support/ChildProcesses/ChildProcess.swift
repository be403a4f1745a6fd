import Foundation
import Synchronization

/// What a finished child process left behind.
public struct ProcessResult: Sendable {
    /// The exit code, or minus the signal that ended it (`-SIGKILL`).
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

public enum ChildProcessError: Error, CustomStringConvertible {
    case cannotStart(String, errno: Int32)
    case timedOut(String)

    public var description: String {
        switch self {
        case .cannotStart(let what, let code): "cannot start \(what): \(String(cString: strerror(code)))"
        case .timedOut(let what): "timed out: \(what)"
        }
    }
}

/// The one environment hygiene of every child a test starts.
public enum ChildEnvironment {
    /// This process's environment without the developer's settings, which must not leak into a
    /// test: `MODELD_*` (modeld's own configuration) and `AWS_*` (credentials); then `overrides`.
    public static func inherited(_ overrides: [String: String] = [:],
                                 from base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        base.filter { !$0.key.hasPrefix("MODELD_") && !$0.key.hasPrefix("AWS_") }
            .merging(overrides) { _, new in new }
    }
}

/// Runs executables with output in files (a chatty child cannot block on a full pipe) and a
/// bounded wait. posix_spawn rather than Foundation's Process: Process learns of the exit through
/// a socket the child inherits, and daemons the child starts (scripts/rgw.sh) would inherit it
/// too, so it would wait for them.
public enum ChildProcess {
    /// A started child. Its exit status is collected once (by `isRunning` or `wait`) and kept.
    public final class Running: Sendable {
        public let pid: pid_t
        let command: String
        /// Where standard output and error go; removed by `wait` unless the caller named a log.
        let outPath: String
        let errPath: String
        let ownsOutput: Bool
        private let exit = Mutex<Int32?>(nil)

        init(pid: pid_t, command: String, outPath: String, errPath: String, ownsOutput: Bool) {
            (self.pid, self.command, self.outPath, self.errPath, self.ownsOutput) = (pid, command, outPath, errPath, ownsOutput)
        }

        /// Whether the child has not exited yet.
        public var isRunning: Bool { collect(blocking: false) == nil }

        public func signal(_ signal: Int32) {
            if isRunning { kill(pid, signal) }
        }

        /// Waits at most `timeout` for the exit and returns the status and output. Past it the
        /// child is SIGKILLed and `timedOut` thrown.
        @discardableResult
        public func wait(timeout: Duration) throws -> ProcessResult {
            defer { if ownsOutput { unlink(outPath); unlink(errPath) } }
            let deadline = ContinuousClock.now + timeout
            var pauseMicroseconds: UInt32 = 1_000
            while true {
                if let status = collect(blocking: false) {
                    return ProcessResult(status: status, stdout: Self.read(outPath), stderr: Self.read(errPath))
                }
                if ContinuousClock.now > deadline {
                    let state = Self.threadStates(pid)  // read before the kill and the reap erase it
                    kill(pid, SIGKILL)
                    _ = collect(blocking: true)
                    throw ChildProcessError.timedOut("\(command) (threads when the wait ended: \(state))")
                }
                // 1 ms first, so a short command is collected at once; up to 16 ms for long ones.
                usleep(pauseMicroseconds)
                pauseMicroseconds = min(pauseMicroseconds * 2, 16_000)
            }
        }

        /// The exit code, or minus the signal that ended it; nil while it runs.
        private func collect(blocking: Bool) -> Int32? {
            exit.withLock { known in
                if let known { return known }
                var status: Int32 = 0
                guard waitpid(pid, &status, blocking ? 0 : WNOHANG) == pid else { return nil }
                // WIFEXITED/WEXITSTATUS are macros Swift does not import.
                known = status & 0x7F == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
                return known
            }
        }

        /// Each thread's scheduler state and, unless sleeping interruptibly, the kernel function it
        /// waits in, e.g. `12 S, D in ext4_sync_file`: a SIGKILLed child that does not exit is
        /// stuck in an uninterruptible system call, and this says which.
        public static func threadStates(_ pid: pid_t) -> String {
            let task = "/proc/\(pid)/task/"
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: task)) ?? []  // gone: exited meanwhile
            var sleeping = 0
            var others: [String] = []
            for tid in threads {
                // /proc/<pid>/task/<tid>/stat: "tid (comm) S ...", comm may hold spaces and parentheses.
                let stat = read(task + tid + "/stat")
                guard let close = stat.lastIndex(of: ")") else { continue }
                let state = stat[stat.index(after: close)...].split(separator: " ").first.map(String.init) ?? "?"
                if state == "S" { sleeping += 1; continue }
                let wchan = read(task + tid + "/wchan")
                others.append(wchan.isEmpty || wchan == "0" ? state : "\(state) in \(wchan)")
            }
            return threads.isEmpty ? "none left" : (["\(sleeping) S"] + others).joined(separator: ", ")
        }

        private static func read(_ path: String) -> String {
            (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""  // a child that wrote nothing
        }
    }

    /// Starts `executable` with `ChildEnvironment.inherited(environment)`, standard input from
    /// /dev/null, in `directory` (modelctl reads ./config/modeld.json from it). Output goes to
    /// temporary files, or both streams to `log` (appended, kept) for a daemon a test reads.
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                             directory: String? = nil, log: String? = nil) throws -> Running {
        let command = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
        let base = NSTemporaryDirectory() + "child-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let outPath = log ?? base + ".out", errPath = log ?? base + ".err"
        let flags = log == nil ? O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY | O_CREAT | O_APPEND
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, flags, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, flags, 0o600)
        // Glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift: a shell changes
        // directory, then becomes the program.
        let (program, programArguments) = directory.map { ("/bin/sh", ["-c", #"cd "$0" && exec "$@""#, $0, executable] + arguments) }
            ?? (executable, arguments)
        let argv = ([program] + programArguments).map { strdup($0) } + [nil]
        let envp = ChildEnvironment.inherited(environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The test runner blocks or ignores some signals; the child starts with defaults, as
        // from a shell, so SIGTERM stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&signals, signal) }
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard code == 0 else { throw ChildProcessError.cannotStart(command, errno: code) }
        return Running(pid: pid, command: command, outPath: outPath, errPath: errPath, ownsOutput: log == nil)
    }

    /// Runs `executable` to completion, waiting at most `timeout` (then it is killed and
    /// `timedOut` thrown).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           directory: String? = nil, timeout: Duration = .seconds(60)) throws -> ProcessResult {
        try start(executable, arguments, environment: environment, directory: directory).wait(timeout: timeout)
    }

    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           directory: URL? = nil, timeout: Duration = .seconds(60)) throws -> ProcessResult {
        try run(executable.path, arguments, environment: environment, directory: directory?.path, timeout: timeout)
    }

    public static func start(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                             directory: URL? = nil, log: URL? = nil) throws -> Running {
        try start(executable.path, arguments, environment: environment, directory: directory?.path, log: log?.path)
    }

    /// What this process's open descriptors point at (the targets of /proc/self/fd's links).
    public static func openDescriptorTargets() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []  // never absent on Linux
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
    }
}
