import DurableFiles
import EventStore
#if canImport(Glibc)
import Glibc
#endif
import ObjectStorage
import ObjectStorageCurl

/// The guard's reader of shipped segments (SPEC §18): each object under
/// `PREFIX/events/dt=DAY/` is fetched once, inflated into `<directory>/DAY/NAME.jsonl` (laid
/// out as `data/events/`, so the evaluator's tail reads it with the same committed-line reader,
/// offsets and rebuilds as a local segment) and recorded in the ledger. The copy is durable
/// before the ledger line, so a crash re-fetches at most one object and never skips one; a
/// shipped object is immutable (`If-None-Match: *`), so one read is the whole of it.
public struct ShippedSegmentFollower: Sendable {
    let bucket: any ObjectBucket
    let prefix: String
    /// Where the inflated copies live: `data/guard-state/events/`.
    public let directory: String
    private var ledger: SegmentLedger

    /// `stateDirectory` is `data/guard-state`: the copies go to `events/` (so `modelctl events stats --data-dir data/guard-state` reads them), the ledger is
    /// `events-read.jsonl` beside them.
    public init(bucket: any ObjectBucket, prefix: String, stateDirectory: String) throws(ShipFailure) {
        self.bucket = bucket
        self.prefix = prefix
        directory = stateDirectory + "/events"
        do throws(IOFailure) {
            if try DurableFile.makeDirectories(directory) { try DurableFile.syncDirectory(stateDirectory) }
        } catch {
            throw ShipFailure("cannot create \(directory): \(error)")
        }
        ledger = try SegmentLedger(path: stateDirectory + "/events-read.jsonl", kind: .read)
    }

    /// Fetches the objects of `days` (`YYYY-MM-DD`, listed one day folder each) not read yet;
    /// returns how many it read. Stops at the first failure: what it read so far stays read.
    public mutating func poll(days: [String]) throws(ShipFailure) -> Int {
        var read = 0
        for day in days {
            let listed: [ListedObject]
            do { listed = try bucket.list(prefix: SegmentName.bucketKeyPrefix(prefix) + day + "/", pageSize: nil) } catch {
                throw ShipFailure("listing \(SegmentName.bucketKeyPrefix(prefix))\(day)/: \(error)")
            }
            for object in listed where !ledger.done.contains(object.key) {
                guard let segment = SegmentName(bucketKey: object.key, prefix: prefix) else { continue }
                let bytes = try fetch(object.key, to: segment)
                try ledger.record(segment: segment.relativePath, key: object.key, bytes: bytes)
                read += 1
            }
        }
        return read
    }

    /// GET, inflate to a scratch name, fsync, rename into place; returns
    /// the inflated size.
    private func fetch(_ key: String, to segment: SegmentName) throws(ShipFailure) -> Int {
        let dayDirectory = directory + "/" + segment.day
        let path = directory + "/" + segment.relativePath
        let scratch = path + ".part"   // not *.jsonl: the tail never reads it
        do throws(IOFailure) {
            if try DurableFile.makeDirectories(dayDirectory) { try DurableFile.syncDirectory(directory) }
        } catch {
            throw ShipFailure("cannot create \(dayDirectory): \(error)")
        }
        let object: [UInt8]
        do { object = try bucket.get(key) } catch { throw ShipFailure("reading \(key): \(error)") }
        try GzipFile.decompress(object, to: scratch, limit: EventStoreConfig.largestSegmentBytes)
        do throws(IOFailure) {
            let fd = try DurableFile.open(scratch, O_RDONLY)
            defer { close(fd) }
            try DurableFile.sync(fd, path: scratch)
            let size = lseek(fd, 0, SEEK_END)
            try DurableFile.rename(scratch, to: path)   // and fsyncs the day directory
            return Int(size)
        } catch {
            unlink(scratch)
            throw ShipFailure("storing \(key) as \(path): \(error)")
        }
    }
}
