import ArgumentParser
import CommandLineArguments
#if canImport(Glibc)
import Glibc
#endif

/// Options every server-facing subcommand shares (SPEC §7).
struct GlobalOptions: ParsableArguments {
    @Option(help: "Server base URL (env MODELD_SERVER; default: listen of ./config/modeld.json, else http://127.0.0.1:8080).")
    var server: String?
    @Option(help: "Admin token (env MODELD_ADMIN_TOKEN).")
    var token: String?
    @Option(help: "File holding the admin token (default: admin_token_file of ./config/modeld.json, else data/admin.token).")
    var tokenFile: String?
    @Flag(help: "Machine-readable JSON output.")
    var json = false

    func validate() throws {
        if token != nil, tokenFile != nil { throw ValidationError("--token and --token-file are mutually exclusive") }
        if let token, token.isEmpty || token.contains(where: { $0.isNewline || $0 == "\r" }) {
            throw ValidationError("--token must be one non-empty line")
        }
        if let url = givenServerURL, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw ValidationError("server URL must start with http:// or https://, got '\(url)'")
        }
    }
}

extension GlobalOptions {
    /// Options that take a value, and flags, of SPEC §7's global set.
    private static let valued: Set<String> = ["--server", "--token", "--token-file"]
    private static let flags: Set<String> = ["--json"]

    /// `modelctl --server URL publish …`: the global options given before the subcommand are
    /// moved after it (before any `--`), so they are accepted on either side, as `git -C` or
    /// `kubectl --context` are. Anything else is left where it is for the parser to judge.
    static func movingLeadingOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first {
            let name = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? first
            if flags.contains(first) || (valued.contains(name) && first.contains("=")) {
                leading.append(first)
                rest = rest.dropFirst()
            } else if valued.contains(first), rest.count >= 2 {
                leading += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else {
                break
            }
        }
        guard !leading.isEmpty else { return arguments }
        var moved = Array(rest)
        moved.insert(contentsOf: leading, at: moved.firstIndex(of: "--") ?? moved.endIndex)
        return moved
    }
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

extension Modelctl {
    /// Usage errors exit 2 as SPEC §7 says (ArgumentParser's own default is EX_USAGE, 64).
    static func main() {
        do {
            let arguments = NegativeNumbers.attached(Array(CommandLine.arguments.dropFirst()))
            var command = try parseAsRoot(GlobalOptions.movingLeadingOptions(arguments))
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            printError(fullMessage(for: error))
            exit(withError: ExitCode(2))
        }
    }
}

/// Writes one line to stderr (fd 2 directly: the C `stderr` global is not concurrency-safe in Swift 6).
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
