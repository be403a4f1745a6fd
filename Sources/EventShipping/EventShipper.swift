import CLinuxShims
import ContentDigest
import DurableFiles
import EventStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ObjectStorage
import ObjectStorageCurl

/// One `events ship` pass (SPEC §9.1): every sealed segment not in the ledger is gzipped and
/// created in the bucket with `If-None-Match: *`, then recorded. What ships is the segment's
/// committed prefix (`SegmentReader`'s offset), commit records included: the same reader reads
/// the shipped file, and a crash's unrepaired tail never leaves the machine.
public struct EventShipper: Sendable {
    public struct Summary: Equatable, Sendable {
        public var shipped = 0
        public var alreadyShipped = 0
        public var bytes = 0
        public var json: String { #"{"shipped":\#(shipped),"skipped":\#(alreadyShipped),"bytes":\#(bytes)}"# }
    }

    let bucket: any ObjectBucket
    let prefix: String
    let dataDir: String
    var eventsDir: String { dataDir + "/events" }

    public init(bucket: any ObjectBucket, prefix: String, dataDir: String) {
        self.bucket = bucket
        self.prefix = prefix
        self.dataDir = dataDir
    }

    public func run() throws(ShipFailure) -> Summary {
        var ledger = try SegmentLedger(path: dataDir + "/shipped.jsonl", kind: .shipped)
        var summary = Summary()
        for segment in try sealedSegments() {
            guard !ledger.done.contains(segment.relativePath) else { summary.alreadyShipped += 1; continue }
            let key = segment.bucketKey(prefix: prefix)
            let bytes = try upload(segment, key: key)
            try ledger.record(segment: segment.relativePath, key: key, bytes: bytes)
            summary.shipped += 1
            summary.bytes += bytes
        }
        return summary
    }

    /// Segments of every instance, oldest first, that no writer will append to again: a newer
    /// segment of the same instance exists, or no running instance holds its lock.
    func sealedSegments() throws(ShipFailure) -> [SegmentName] {
        var all: [SegmentName] = []
        for day in SegmentLayout.days(in: eventsDir) {
            let directory = "\(eventsDir)/\(day)"
            guard let names = DurableFile.entries(of: directory) else {
                throw ShipFailure("cannot list \(directory): \(String(cString: strerror(errno)))")
            }
            all += names.sorted().compactMap { SegmentName(day: day, fileName: $0) }
        }
        var newest: [String: Int] = [:]
        for s in all { newest[s.instance] = max(newest[s.instance] ?? 0, s.number) }
        var running: [String: Bool] = [:]
        var sealed: [SegmentName] = []
        for s in all {
            if s.number < newest[s.instance]! { sealed.append(s); continue }
            if running[s.instance] == nil { running[s.instance] = try isRunning(s.instance) }
            if !running[s.instance]! { sealed.append(s) }
        }
        return sealed
    }

    /// Whether a live modeld holds its instance lock, asked with F_OFD_GETLK: the probe takes
    /// no lock, so it can never make that instance's start-up fail.
    private func isRunning(_ instance: String) throws(ShipFailure) -> Bool {
        let path = SegmentLayout(root: eventsDir, instance: instance).lockPath
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return false }
            throw ShipFailure("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let held = modeld_ofd_is_locked(fd)
        guard held >= 0 else { throw ShipFailure("cannot test the lock \(path): \(String(cString: strerror(errno)))") }
        return held == 1
    }

    /// Gzips the committed prefix to a scratch file and creates the object; returns the bytes
    /// of segment shipped. An object already there (412) must be the same bytes (HEAD's sha256).
    private func upload(_ segment: SegmentName, key: String) throws(ShipFailure) -> Int {
        let path = "\(eventsDir)/\(segment.relativePath)"
        let committed: Int
        do { committed = try SegmentReader(path: path).forEachCommittedLine { _ in }.offset } catch {
            throw ShipFailure("reading \(path): \(error)")
        }
        // Unique per call, not per segment: two shippers in one process (two data dirs, or tests
        // running side by side) may ship segments of the same name at once.
        let scratch = FileManager.default.temporaryDirectory.path + "/modelctl-ship-\(getpid())-\(UInt64.random(in: 0...UInt64.max))-\(segment.fileName).gz"
        defer { unlink(scratch) }
        let size = try GzipFile.compress(path, length: committed, to: scratch)
        do {
            let sha = try SHA256Hex.of(path: scratch, length: size)
            let attributes = ObjectAttributes(contentType: "application/gzip", sha256: sha)
            let outcome = try bucket.upload(key, file: scratch, size: size, sha256: sha, attributes: attributes, createOnly: true,
                                            plan: nil, progress: nil)
            if outcome == .alreadyExists {
                guard let head = try bucket.head(key) else { throw ShipFailure("\(key): answered 412 but HEAD finds nothing") }
                guard head.sha256 == sha else {
                    throw ShipFailure("\(key) already exists with other content (sha256 \(head.sha256 ?? "none")); not overwritten")
                }
            }
        } catch let failure as ShipFailure {
            throw failure
        } catch {
            throw ShipFailure("uploading \(path) to \(key): \(error)")
        }
        return committed
    }
}
