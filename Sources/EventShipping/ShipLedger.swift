import Foundation

/// `data/shipped.jsonl` (SPEC §9.1): one line per segment that reached the bucket,
/// `{"segment":"<day>/<file>","key":"<object key>","bytes":n,"shipped_at":"…"}`, appended and
/// fsynced only after the upload succeeded — so a crash between the two re-ships at most that
/// one segment, which `If-None-Match: *` turns into a confirmed no-op.
struct ShipLedger {
    struct Entry: Codable {
        let segment: String
        let key: String
        let bytes: Int
        let shipped_at: String
    }

    let path: String
    private(set) var shipped: Set<String> = []

    /// Reads the ledger; a line that does not parse (a torn last append) is ignored, so its
    /// segment ships again (a no-op on the bucket).
    init(path: String) throws(CLIFailure) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure("cannot read \(path)") }
        for line in data.split(separator: 0x0A) {
            if let entry = try? JSONDecoder().decode(Entry.self, from: line) { shipped.insert(entry.segment) }
        }
    }

    mutating func record(_ entry: Entry) throws(CLIFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIFailure("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(entry) else { throw CLIFailure("cannot encode ledger entry") }
        line.append(0x0A)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count, fsync(fd) == 0 else {
            throw CLIFailure("cannot append to \(path): \(String(cString: strerror(errno)))")
        }
        shipped.insert(entry.segment)
    }
}
