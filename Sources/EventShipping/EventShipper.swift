import CLinuxShims
import EventStore
import Foundation
import ObjectStorage
import ObjectStorageCurl

/// One `events ship` pass (SPEC §9.1): every sealed segment not in the ledger is gzipped and
/// created in the bucket with `If-None-Match: *`, then recorded. What ships is the segment's
/// committed prefix (`SegmentReader`'s offset), commit records included: the same reader reads
/// the shipped file, and a crash's unrepaired tail never leaves the machine.
struct EventShipper {
    struct Segment {
        let day: String
        let name: String
        let instance: String
        let number: Int
        var relative: String { "\(day)/\(name)" }
    }

    struct Summary {
        var shipped = 0
        var alreadyShipped = 0
        var bytes = 0
        var json: String { #"{"shipped":\#(shipped),"skipped":\#(alreadyShipped),"bytes":\#(bytes)}"# }
    }

    let client: S3Client
    let prefix: String
    let dataDir: String
    var eventsDir: String { dataDir + "/events" }

    func run() throws(CLIFailure) -> Summary {
        var ledger = try ShipLedger(path: dataDir + "/shipped.jsonl")
        var summary = Summary()
        for segment in try sealedSegments() {
            guard !ledger.shipped.contains(segment.relative) else { summary.alreadyShipped += 1; continue }
            let key = objectKey(segment)
            let bytes = try upload(segment, key: key)
            try ledger.record(.init(segment: segment.relative, key: key, bytes: bytes,
                                    shipped_at: ISO8601DateFormatter().string(from: Date())))
            summary.shipped += 1
            summary.bytes += bytes
        }
        return summary
    }

    func objectKey(_ segment: Segment) -> String {
        (prefix.isEmpty ? "" : prefix + "/") + "events/dt=\(segment.day)/\(segment.name).gz"
    }

    /// Segments of every instance, oldest first, that no writer will append to again: a newer
    /// segment of the same instance exists, or no running instance holds its lock.
    func sealedSegments() throws(CLIFailure) -> [Segment] {
        let fm = FileManager.default
        var all: [Segment] = []
        let days = ((try? fm.contentsOfDirectory(atPath: eventsDir)) ?? []).filter { EventExport.isDay($0) }.sorted()
        for day in days {
            for name in ((try? fm.contentsOfDirectory(atPath: "\(eventsDir)/\(day)")) ?? []).sorted() {
                if let segment = Self.parse(day: day, name: name) { all.append(segment) }
            }
        }
        var newest: [String: Int] = [:]
        for s in all { newest[s.instance] = max(newest[s.instance] ?? 0, s.number) }
        var running: [String: Bool] = [:]
        var sealed: [Segment] = []
        for s in all {
            if s.number < newest[s.instance]! { sealed.append(s); continue }
            if running[s.instance] == nil { running[s.instance] = try isRunning(s.instance) }
            if !running[s.instance]! { sealed.append(s) }
        }
        return sealed
    }

    /// `<instance>-<NNNNNN>.jsonl` (instance ids may contain `-`: the number is after the last).
    static func parse(day: String, name: String) -> Segment? {
        guard name.hasSuffix(".jsonl"), let dash = name.lastIndex(of: "-") else { return nil }
        let digits = name[name.index(after: dash)...].dropLast(".jsonl".count)
        guard digits.count >= 6, digits.allSatisfy(\.isASCII), let number = Int(digits) else { return nil }
        return Segment(day: day, name: name, instance: String(name[..<dash]), number: number)
    }

    /// Whether a live modeld holds `events/<instance>.lock`, asked with F_OFD_GETLK: the probe
    /// takes no lock, so it can never make that instance's start-up fail.
    private func isRunning(_ instance: String) throws(CLIFailure) -> Bool {
        let path = "\(eventsDir)/\(instance).lock"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return false }
            throw CLIFailure("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let held = modeld_ofd_is_locked(fd)
        guard held >= 0 else { throw CLIFailure("cannot test the lock \(path): \(String(cString: strerror(errno)))") }
        return held == 1
    }

    /// Gzips the committed prefix to a scratch file and creates the object; returns the bytes
    /// of segment shipped. An object already there (412) must be the same bytes (HEAD's sha256).
    private func upload(_ segment: Segment, key: String) throws(CLIFailure) -> Int {
        let path = "\(eventsDir)/\(segment.relative)"
        let committed: Int
        do { committed = try SegmentReader(path: path).forEachCommittedLine { _ in }.offset } catch {
            throw CLIFailure("reading \(path): \(error)")
        }
        let scratch = NSTemporaryDirectory() + "/modelctl-ship-\(getpid())-\(segment.name).gz"
        defer { unlink(scratch) }
        try GzipFile.compress(path, length: committed, to: scratch)
        do {
            let size = Int64((try? FileManager.default.attributesOfItem(atPath: scratch)[.size] as? Int) ?? 0)
            let sha = try S3Client.sha256(of: scratch, offset: 0, length: size)
            let attributes = ObjectAttributes(contentType: "application/gzip", sha256: sha)
            let outcome = try client.upload(key, file: scratch, size: size, sha256: sha, attributes: attributes, createOnly: true)
            if outcome == .alreadyExists {
                guard let head = try client.head(key) else { throw CLIFailure("\(key): answered 412 but HEAD finds nothing") }
                guard head.sha256 == sha else {
                    throw CLIFailure("\(key) already exists with other content (sha256 \(head.sha256 ?? "none")); not overwritten")
                }
            }
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure("uploading \(path) to \(key): \(error)")
        }
        return committed
    }
}
