import DurableFiles
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

    /// Reads the ledger (none yet when the file does not exist).
    init(path: String) throws(ShipFailure) {
        self.path = path
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch CocoaError.fileReadNoSuchFile {
            return
        } catch {
            throw ShipFailure("cannot read \(path): \(error.localizedDescription)")
        }
        for line in data.split(separator: 0x0A) {
            // A line that does not parse (a torn last append) is skipped: its segment ships
            // again, which `If-None-Match: *` and the HEAD check turn into a confirmed no-op.
            if let entry = try? JSONDecoder().decode(Entry.self, from: line) { shipped.insert(entry.segment) }
        }
    }

    mutating func record(_ entry: Entry) throws(ShipFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let line: Data
        do { line = try encoder.encode(entry) } catch { throw ShipFailure("cannot encode the ledger entry of \(entry.segment): \(error)") }
        do throws(IOFailure) { try DurableFile.appendLine([UInt8](line), to: path) } catch {
            throw ShipFailure("cannot append to the ledger: \(error)")
        }
        shipped.insert(entry.segment)
    }
}
