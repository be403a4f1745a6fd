import ArgumentParser
import EventStore
import Foundation

/// `modelctl events export|stats` (SPEC §7.3): offline readers over a data directory.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Read outcome events from a data directory.",
        subcommands: [EventsExport.self, EventsStats.self, EventsShip.self]
    )
}

extension EventsCommand {
    /// The events root of `--data-dir`, or a failure naming the missing directory (exit 1).
    static func directory(dataDir: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dataDir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIFailure("data directory \(dataDir) does not exist")
        }
        return dataDir + "/events"
    }

    static func checkDay(_ value: String?, _ flag: String) throws {
        if let value, !EventExport.isDay(value) { throw CLIFailure("\(flag) \(value): expected a UTC day YYYY-MM-DD", exitCode: 2) }
    }
}

/// Buffers stdout writes (fd 1) into large chunks; export output can be gigabytes.
final class EventsStdout {
    private var buffer: [UInt8] = []

    func append<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    func append(_ s: String) { append(s.utf8) }

    func flush() {
        var done = 0
        while done < buffer.count {
            let n = buffer[done...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if n <= 0 { if n < 0 && errno == EINTR { continue }; break }
            done += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
