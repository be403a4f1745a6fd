import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Options every server-facing subcommand shares (SPEC §7).
struct GlobalOptions: ParsableArguments {
    @Option(help: "Server base URL (env MODELD_SERVER).")
    var server: String?
    @Option(help: "Admin token (env MODELD_ADMIN_TOKEN).")
    var token: String?
    @Option(help: "File holding the admin token.")
    var tokenFile: String?
    @Flag(help: "Machine-readable JSON output.")
    var json = false
}

/// A failure a user can act on: one line on stderr, exit 1 (or 2 for usage).
struct CLIFailure: Error, CustomStringConvertible {
    let message: String
    let exitCode: Int32
    init(_ message: String, exitCode: Int32 = 1) { self.message = message; self.exitCode = exitCode }
    var description: String { message }
}

extension ParsableCommand {
    /// Runs `body`, turning a CLIFailure into "modelctl: <cause>" on stderr and its exit code.
    func failing(_ body: () throws -> Void) throws {
        do { try body() } catch let f as CLIFailure {
            printError("modelctl: \(f.message)")
            throw ExitCode(f.exitCode)
        }
    }
}

/// Writes one line to stderr (fd 2 directly: the C `stderr` global is not concurrency-safe in Swift 6).
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
