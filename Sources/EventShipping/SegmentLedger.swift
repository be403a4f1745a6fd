import CivilTime
import DurableFiles
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON Lines ledger of segments done, appended and fsynced only after the work succeeded —
/// so a crash between the two redoes at most that one segment. One line per segment:
/// `{"bytes":n,"key":"<object key>","segment":"<day>/<file>","<kind>_at":"<RFC 3339>"}`.
struct SegmentLedger: Sendable {
    enum Kind: Sendable {
        /// `data/shipped.jsonl` (SPEC §9.1): segments that reached the bucket, remembered by their
        /// local name (`shipped_at`); one shipped again after a crash is a confirmed no-op through
        /// `If-None-Match: *`.
        case shipped
        /// The guard's `data/guard-state/events-read.jsonl` (§18): bucket objects copied, remembered
        /// by their key (`read_at`).
        case read
    }

    private struct Entry: Codable {
        let segment: String
        let key: String
        let bytes: Int
        // Exactly one, by the ledger's kind (nil is not written).
        var shipped_at: String? = nil
        var read_at: String? = nil

        func identity(_ kind: Kind) -> String { kind == .shipped ? segment : key }
        func doneAt(_ kind: Kind) -> String? { kind == .shipped ? shipped_at : read_at }
    }

    let path: String
    let kind: Kind
    private(set) var done: Set<String> = []

    /// Reads the ledger (none yet when the file does not exist).
    init(path: String, kind: Kind) throws(ShipFailure) {
        self.path = path
        self.kind = kind
        let bytes: [UInt8]?
        do throws(IOFailure) { bytes = try DurableFile.read(path) } catch { throw ShipFailure("cannot read \(path): \(error)") }
        for line in (bytes ?? []).split(separator: 0x0A) {
            // A line that does not parse (a torn last append) is skipped: its segment is done
            // again, which both kinds make a no-op (a 412 confirmed by HEAD; a rename over the
            // same bytes).
            if let entry = try? JSONDecoder().decode(Entry.self, from: Data(line)), entry.doneAt(kind) != nil {
                done.insert(entry.identity(kind))
            }
        }
    }

    /// `segment` (`<day>/<file>`) and its object `key`, done now.
    mutating func record(segment: String, key: String, bytes: Int) throws(ShipFailure) {
        let now = RFC3339.format(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let entry = kind == .shipped ? Entry(segment: segment, key: key, bytes: bytes, shipped_at: now)
                                     : Entry(segment: segment, key: key, bytes: bytes, read_at: now)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let line: Data
        do { line = try encoder.encode(entry) } catch { throw ShipFailure("cannot encode the ledger entry of \(entry.identity(kind)): \(error)") }
        do throws(IOFailure) { try DurableFile.appendLine([UInt8](line), to: path) } catch {
            throw ShipFailure("cannot append to \(path): \(error)")
        }
        done.insert(entry.identity(kind))
    }
}
