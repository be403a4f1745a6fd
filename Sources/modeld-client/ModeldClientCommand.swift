import ArgumentParser
import CommandLineArguments
import Foundation
import ModeldClient

/// `modeld-client`: the reference client library on the command line (SPEC §13).
@main
struct ModeldClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modeld-client",
        abstract: "Check for, download, verify and install models from modeld; queue and send outcome events.",
        subcommands: [CheckCommand.self, UpdateCommand.self, StatusCommand.self, RecordCommand.self,
                      FlushCommand.self, SimulateCommand.self, EvaluateCommand.self, ModelsCommand.self, DeleteCommand.self,
                      UnblockCommand.self, LaunchCommand.self])

    @Option(help: "modeld base URL (dynamic mode: /latest, events).")
    var server: String?
    @Option(name: .customLong("static"), help: "URL of the directory holding latest_model_details.sig.json, or of that file.")
    var staticURL: String?
    @Option(help: "URL of the directory holding rules/ (modeld's root or a bucket's …/PREFIX/models/): evaluate the channel's rules here.")
    var rules: String?
    @Option(help: "Base URL of a server answering POST /events (an ingest-only modeld), for --static and --rules.")
    var events: String?
    @Option(help: "Most events kept queued; beyond it the oldest whole batches are dropped and counted.")
    var maxQueuedEvents = 10_000
    @OptionGroup var device: DeviceOptions
    @Option(help: "The app's SDK version, MAJOR[.MINOR[.PATCH]].")
    var sdk: String
    @Option(help: "Cache directory (installed models, partial downloads, state, events).")
    var cache: String
    @Option(help: "Install identity (default: a UUID created once and kept in the cache).")
    var clientId: String?
    @Option(name: .customLong("channel"), help: "Release channel (default stable); repeatable for update: every channel in one check.")
    var channels: [String] = []
    /// The one channel of every command but a multi-channel `update`.
    var channel: String { channels.first ?? "stable" }
    @Option(help: "Channel whose installed model this channel's adapters apply on: its SHA-256 goes with each check as base= (rules mode reads every channel's installed model itself).")
    var baseChannel: String?
    @Option(help: "A trusted public key file (.pub of `modelctl keys generate`); repeatable.")
    var trustKey: [String] = []
    @Flag(help: "Machine-readable JSON output (check, update, status, models).")
    var json = false
    @OptionGroup var app: AppOptions
    @Option(help: "Leave a release larger than this many bytes `available` instead of downloading it.")
    var maxBytes: Int64?
    @Option(help: "HTTP client: automatic (libcurl on Linux, URLSession elsewhere), urlSession, libcurl.")
    var transport: TransportKind = .automatic

    func validate() throws {
        if let maxBytes, maxBytes < 0 { throw ValidationError("--max-bytes must be ≥ 0, got \(maxBytes)") }
        guard [server, staticURL, rules].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --server URL, --static URL and --rules URL")
        }
        for url in [server, staticURL, rules, events].compactMap({ $0 }) where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw ValidationError("URL must start with http:// or https://, got '\(url)'")
        }
    }

    /// Usage errors exit 2 as SPEC §13 says (ArgumentParser's own default is EX_USAGE, 64).
    static func main() async {
        do {
            var command = try parseAsRoot(NegativeNumbers.attached(Array(CommandLine.arguments.dropFirst())))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CLIFailure {
            printError("modeld-client: \(failure.message)")
            exit(withError: ExitCode(failure.exitCode))
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            printError(fullMessage(for: error))
            exit(withError: ExitCode(2))
        }
    }

    func clientConfiguration() throws -> ModeldConfiguration {
        let source: ModeldConfiguration.Source
        if let server, let url = URL(string: server) { source = .server(url) }
        else if let staticURL, let url = URL(string: staticURL) { source = .staticFile(url) }
        else if let rules, let url = URL(string: rules) { source = .rules(url) }
        else { throw CLIFailure("bad URL", exitCode: 2) }
        var configuration = ModeldConfiguration(source: source, sdkVersion: sdk, cacheDirectory: URL(fileURLWithPath: cache),
                                                channel: channel, clientID: clientId, trustedKeys: try trustedKeys())
        // The demo keeps SPEC §13's rule: no --trust-key, unsigned answers accepted (warnIfUnsigned says so).
        configuration.allowUnsigned = trustKey.isEmpty
        app.apply(to: &configuration)
        configuration.afterInstallStep = try Self.crashHook()
        configuration.events = try events.map { text in
            guard let url = URL(string: text) else { throw CLIFailure("bad --events URL '\(text)'", exitCode: 2) }
            return url
        }
        configuration.deviceAttributes = try device.attributes(over: .current)
        configuration.maxQueuedEvents = maxQueuedEvents
        configuration.conditions.maxBytes = maxBytes
        configuration.baseChannel = baseChannel
        configuration.transport = transport
        return configuration
    }

    /// The `--trust-key` files, parsed (an unreadable or bad one is a usage error).
    func trustedKeys() throws -> [TrustedPublicKey] {
        try trustKey.map { path in
            let text: String
            do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw CLIFailure("cannot read --trust-key \(path): \(error.localizedDescription)", exitCode: 2)
            }
            do { return try TrustedPublicKey(pubFileContents: text) } catch { throw CLIFailure("--trust-key \(path): \(error)", exitCode: 2) }
        }
    }

    /// Test-only hook: `MODELD_CLIENT_CRASH_AT=<step>` (an ``InstallStep`` name) SIGKILLs this
    /// process right after that install step, so integration tests can prove a crash there
    /// leaves the old or the new model active. Nothing is flushed or cleaned up, as in a real crash.
    static func crashHook() throws -> (@Sendable (InstallStep) -> Void)? {
        guard let name = ProcessInfo.processInfo.environment["MODELD_CLIENT_CRASH_AT"] else { return nil }
        guard let target = InstallStep(rawValue: name) else {
            let steps = InstallStep.allCases.map(\.rawValue).joined(separator: ", ")
            throw CLIFailure("MODELD_CLIENT_CRASH_AT must be one of \(steps), got '\(name)'", exitCode: 2)
        }
        return { step in if step == target { kill(getpid(), SIGKILL) } }
    }

    /// Opens the client for one command; failures become one line on stderr and an exit code.
    func withClient(_ body: (ModelChannel) async throws -> Void) async throws {
        guard channels.count <= 1 else { throw CLIFailure.usage("--channel is given once, except for update") }
        do {
            let client = try ModelChannel(try clientConfiguration())
            // A command that finished, failed or was told to stop is a clean end of this launch
            // (SPEC §13.2); only a crash or SIGKILL leaves it counted.
            do { try await body(client) } catch {
                await client.close()
                throw error
            }
            await client.close()
        } catch let error as ModeldClientError {
            printError("modeld-client: \(error)")
            if case .invalidConfiguration = error { throw ExitCode(2) }
            throw ExitCode(1)
        }
    }

    func warnIfUnsigned() {
        if trustKey.isEmpty { printError("modeld-client: no --trust-key given: accepting unsigned answers") }
    }
}

extension TransportKind: ExpressibleByArgument {}

/// A failure a user can act on: one line on stderr, exit 1 (or 2 for usage).
struct CLIFailure: Error {
    let message: String
    let exitCode: Int32
    init(_ message: String, exitCode: Int32 = 1) { self.message = message; self.exitCode = exitCode }
    static func usage(_ message: String) -> CLIFailure { CLIFailure(message, exitCode: 2) }
}

/// Writes one line to stderr (fd 2 directly: the C `stderr` global is not concurrency-safe in Swift 6).
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
