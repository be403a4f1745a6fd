import Foundation

/// Runs a program to completion with output in files, polling for its exit with a deadline.
/// posix_spawn rather than Foundation's Process: Process learns of the exit through a socket the
/// child inherits, and the daemons scripts/rgw.sh starts would inherit it too, so it would wait
/// for them.
enum Spawn {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// A started child; `wait` collects it.
    struct Running {
        let pid: pid_t
        let executable: String
        let outPath: String
        let errPath: String

        /// Waits at most `timeout` seconds (then SIGKILL) and returns the exit status and output.
        func wait(timeout: Double) -> Result {
            defer { unlink(outPath); unlink(errPath) }
            var status: Int32 = 0
            let deadline = ContinuousClock.now + .seconds(timeout)
            while waitpid(pid, &status, WNOHANG) == 0 {
                if ContinuousClock.now > deadline {
                    kill(pid, SIGKILL)
                    _ = waitpid(pid, &status, 0)
                    return Result(status: -1, stdout: "", stderr: "\(executable) timed out after \(timeout) s")
                }
                usleep(20_000)
            }
            // WIFEXITED/WEXITSTATUS are macros Swift does not import; a signal gives -signal.
            let exitCode = status & 0x7F == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
            return Result(status: exitCode, stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                          stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
        }
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
                    timeout: Double) -> Result {
        guard let running = start(executable, arguments, environment: environment, directory: directory) else {
            return Result(status: -1, stdout: "", stderr: "cannot run \(executable)")
        }
        return running.wait(timeout: timeout)
    }

    /// `environment` is merged over this process's, minus its AWS_* variables (a developer's
    /// credentials must not leak into a test). `directory` is the child's working directory
    /// (modelctl reads ./config/modeld.json from it).
    static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) -> Running? {
        let base = "/tmp/spawn-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let outPath = base + ".out", errPath = base + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") }
            .merging(environment) { _, new in new }.map { "\($0.key)=\($0.value)" }
        // Glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift: a shell changes
        // directory, then becomes the program.
        let (program, programArguments) = directory.map { ("/bin/sh", ["-c", #"cd "$0" && exec "$@""#, $0, executable] + arguments) }
            ?? (executable, arguments)
        let argv = ([program] + programArguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
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
        guard posix_spawn(&pid, program, &actions, &attributes, argv, envp) == 0 else { return nil }
        return Running(pid: pid, executable: executable, outPath: outPath, errPath: errPath)
    }
}
