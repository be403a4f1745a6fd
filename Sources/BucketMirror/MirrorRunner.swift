import ContentDigest
import CurlTransport
import DurableFiles
import Foundation
import ModelCatalog
import ModelMirror
import ObjectStorage
import ObjectStorageCurl

/// The I/O around MirrorPlan: reads the catalog and the local JSON files, HEADs every key,
/// then uploads in plan order. Requests go `concurrency` at a time only where order does not
/// matter (HEADs, the parts of one file, a batch of files): each batch of the plan finishes
/// before the next starts, which is the consistency guarantee.
public struct MirrorRunner: Sendable {
    let client: any ObjectBucket
    let modelsDir: String
    let prefix: String
    let pointerMaxAge: Int
    let multipartThreshold: Int64
    let partSize: Int64?
    let concurrency: Int
    /// A progress observer for a batch of `total` bytes, or nil (modelctl: a bar on a terminal).
    let progress: @Sendable (_ total: Int64) -> (any CurlProgressObserver)?
    /// A line for the operator (a resumed upload), printed by the caller.
    let notice: @Sendable (String) -> Void
    /// Unix seconds: when deletions fall due (SPEC §9.1's max-age wait).
    let now: @Sendable () -> Int64

    public init(client: any ObjectBucket, modelsDir: String, prefix: String, pointerMaxAge: Int, multipartThreshold: Int64, partSize: Int64?,
                concurrency: Int, progress: @escaping @Sendable (Int64) -> (any CurlProgressObserver)? = { _ in nil },
                notice: @escaping @Sendable (String) -> Void = { _ in },
                now: @escaping @Sendable () -> Int64 = { Timestamp.now().millisecondsSinceEpoch / 1000 }) {
        self.client = client
        self.modelsDir = modelsDir
        self.prefix = prefix
        self.pointerMaxAge = pointerMaxAge
        self.multipartThreshold = multipartThreshold
        self.partSize = partSize
        self.concurrency = concurrency
        self.progress = progress
        self.notice = notice
        self.now = now
    }

    public struct Summary: Equatable, Sendable {
        public var uploaded = 0, skipped = 0, deleted = 0
        public var bytes: Int64 = 0

        /// What a run of `pass` would report (for `--dry-run --json`).
        public init(pass: Pass) {
            deleted = pass.deletions.count
            uploaded = pass.uploads.uploads.count
            skipped = pass.uploads.steps.count - uploaded - pass.uploads.conflicts.count
            bytes = pass.uploads.bytesToUpload
        }

        init() {}

        public var json: String { #"{"uploaded":\#(uploaded),"skipped":\#(skipped),"deleted":\#(deleted),"bytes":\#(bytes)}"# }
    }

    /// What one pass does: the upload plan, then the garbage-collected keys whose wait is over.
    public struct Pass: Sendable {
        public let uploads: MirrorPlan
        public let deletions: [String]
        /// When the next pending deletion falls due (for --watch), nil when none is pending.
        public let secondsUntilNextDeletion: Int64?
    }

    public func plan() throws(MirrorFailure) -> Pass {
        let catalog: Catalog
        do { catalog = try CatalogStore(directory: modelsDir, publicBaseURL: "").load() } catch {
            throw MirrorFailure("cannot read the catalog in \(modelsDir): \(error)")
        }
        let objects = MirrorObject.desired(catalog: catalog, modelsDir: modelsDir, prefix: prefix, json: try localJSON(), pointerMaxAge: pointerMaxAge)
        for object in objects { try checkLocal(object) }
        let client = self.client
        let heads = try storage { () throws(S3Error) in
            try Parallel.map(objects.count, width: concurrency) { index throws(S3Error) in
                try client.head(objects[index].key).map { RemoteObject(size: $0.size, sha256: $0.sha256) }
            }
        }
        var remote: [String: RemoteObject?] = [:]
        for (object, head) in zip(objects, heads) { remote[object.key] = head }
        let plan = MirrorPlan(objects: objects, remote: remote, multipartThreshold: multipartThreshold)
        if let conflict = plan.conflicts.first {
            throw MirrorFailure("\(conflict.object.key) already exists in the bucket with other content (size or x-amz-meta-sha256 differ); "
                + "immutable objects are never overwritten (\(plan.conflicts.count) such object(s))")
        }
        let schedule = try scheduleDeletions(catalog, objects)
        let now = now()
        return Pass(uploads: plan, deletions: schedule.due(now: now, maxAge: pointerMaxAge),
                    secondsUntilNextDeletion: schedule.secondsUntilNextDue(now: now, maxAge: pointerMaxAge))
    }

    /// Brings the deletion schedule up to date: a collected file still in the bucket starts its
    /// wait now (the JSON in place no longer names it, or will not once this pass uploads it);
    /// one already gone is done.
    private func scheduleDeletions(_ catalog: Catalog, _ objects: [MirrorObject]) throws(MirrorFailure) -> DeletionSchedule {
        let journal = MirrorJournal(modelsDir: modelsDir)
        var schedule = try journal.deletions()
        let now = now()
        let recorded = schedule.snapshots
        let superseded = schedule.supersededSnapshots(desired: objects)
        var changed = schedule.snapshots != recorded
        for key in DeletionSchedule.collectedKeys(catalog: catalog, prefix: prefix) + superseded
        where !schedule.done.contains(key) && schedule.pending[key] == nil {
            if try storage({ () throws(S3Error) in try client.head(key) }) != nil { schedule.pending[key] = now } else { schedule.done.insert(key) }
            changed = true
        }
        if changed { try journal.save(schedule) }
        return schedule
    }

    /// Deletes due keys after everything else: the JSON in place has not named them for max-age.
    private func delete(_ keys: [String], summary: inout Summary) throws(MirrorFailure) {
        guard !keys.isEmpty else { return }
        let journal = MirrorJournal(modelsDir: modelsDir)
        var schedule = try journal.deletions()
        for key in keys {
            try storage { () throws(S3Error) in try client.delete(key) }
            schedule.pending[key] = nil
            schedule.done.insert(key)
            try journal.save(schedule)
            summary.deleted += 1
        }
    }

    public func run(_ pass: Pass) throws(MirrorFailure) -> Summary {
        var summary = Summary()
        summary.skipped = pass.uploads.steps.count(where: { $0.action == .skip })
        for batch in pass.uploads.batches {
            let progress = progress(batch.reduce(0) { $0 + $1.object.size })
            let created: [Bool]
            if batch.count == 1 {
                created = [try upload(batch[0], progress: progress)]
            } else {
                let combined = progress.map { CombinedProgress($0) }
                defer { combined?.finish() }
                let runner = self
                created = try Parallel.map(batch.count, width: concurrency) { index throws(MirrorFailure) in
                    try runner.upload(batch[index], progress: combined?.observer(forJob: index))
                }
            }
            for (step, isNew) in zip(batch, created) {
                if isNew {
                    summary.uploaded += 1
                    summary.bytes += step.object.size
                } else {
                    summary.skipped += 1
                }
            }
        }
        try delete(pass.deletions, summary: &summary)
        return summary
    }

    /// Uploads one object; false when another writer created it between our HEAD and PUT with
    /// the same bytes (an error with other bytes).
    private func upload(_ step: MirrorPlan.Step, progress: (any CurlProgressObserver)?) throws(MirrorFailure) -> Bool {
        let object = step.object
        let attributes = ObjectAttributes(contentType: object.contentType, cacheControl: object.cacheControl, sha256: object.sha256)
        let outcome = try step.action == .multipart ? uploadMultipart(object, attributes, progress) : storage { () throws(S3Error) in
            try client.upload(object.key, file: object.localPath, size: object.size, sha256: object.sha256, attributes: attributes,
                              createOnly: object.isImmutable, plan: nil, progress: progress)
        }
        guard outcome == .alreadyExists else { return true }
        let head = try storage { () throws(S3Error) in try client.head(object.key) }
        guard head?.size == object.size, head?.sha256 == object.sha256 else {
            throw MirrorFailure("\(object.key) was created concurrently with other content")
        }
        return false
    }

    /// A multipart upload that survives being killed: the upload id is journaled before any part
    /// goes out; a later run lists the parts already in the bucket and sends only the others.
    /// An upload journaled for other bytes or another part size is aborted and started over.
    private func uploadMultipart(_ object: MirrorObject, _ attributes: ObjectAttributes, _ progress: (any CurlProgressObserver)?) throws(MirrorFailure) -> PutOutcome {
        let plan = try storage { () throws(S3Error) in try PartPlan(objectSize: object.size, partSize: partSize) }
        let journal = MirrorJournal(modelsDir: modelsDir)
        var resumed: (uploadID: String, done: [PartListPage.Part])?
        if let entry = journal.entry(for: object.key) {
            if entry.size == object.size, entry.sha256 == object.sha256, entry.part_size == plan.partSize {
                do {
                    resumed = (entry.upload_id, try client.listParts(object.key, uploadID: entry.upload_id))
                } catch where error.serviceCode == "NoSuchUpload" {
                    // Aborted or expired (R2 drops them after 7 days): start over.
                } catch {
                    throw MirrorFailure(error.description)
                }
            } else {
                // Best effort: the journaled upload is for other bytes and is never completed;
                // one that cannot be aborted now is expired by the bucket's lifecycle rule.
                try? client.abortMultipartUpload(object.key, uploadID: entry.upload_id)
            }
            if resumed == nil { journal.remove(object.key) }
        }
        let uploadID: String
        if let resumed {
            uploadID = resumed.uploadID
            notice("resuming \(object.key): \(resumed.done.count) of \(plan.partCount) parts already uploaded")
        } else {
            uploadID = try storage { () throws(S3Error) in try client.createMultipartUpload(object.key, attributes: attributes) }
            try journal.record(.init(key: object.key, upload_id: uploadID, size: object.size, sha256: object.sha256, part_size: plan.partSize))
        }
        let parts = try storage { () throws(S3Error) in
            try client.uploadMissingParts(object.key, uploadID: uploadID, file: object.localPath, plan: plan, done: resumed?.done ?? [],
                                          concurrency: concurrency, progress: progress)
        }
        do {
            let outcome = try client.completeMultipartUpload(object.key, uploadID: uploadID, parts: parts, createOnly: object.isImmutable)
            journal.remove(object.key)
            return outcome
        } catch {
            // A refused Complete (wrong parts, changed file) cannot be resumed: clear it.
            if !RetryPolicy.isRetryable(error) {
                // Best effort, as above: Complete's own error is the one to report.
                try? client.abortMultipartUpload(object.key, uploadID: uploadID)
                journal.remove(object.key)
            }
            throw MirrorFailure(error.description)
        }
    }

    /// The JSON files under models/ that exist: the pointers, details/<N>.json and the rules.
    private func localJSON() throws(MirrorFailure) -> [LocalJSON] {
        var files: [LocalJSON] = []
        for name in try MirrorObject.jsonNames(list: modelsSubdirectoryLister(modelsDir)) {
            let path = modelsDir + "/" + name
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch CocoaError.fileReadNoSuchFile {
                continue  // not written yet (no signing key, no rules): nothing to mirror
            } catch {
                throw MirrorFailure("cannot read \(path): \(error.localizedDescription)")
            }
            files.append(LocalJSON(name: name, localPath: path, size: Int64(data.count), sha256: SHA256Hex.of(Array(data))))
        }
        return files
    }

    /// A model file must be there with its catalog size before anything is sent.
    private func checkLocal(_ object: MirrorObject) throws(MirrorFailure) {
        guard object.kind == .modelFile else { return }
        var info = stat()
        if stat(object.localPath, &info) != 0 && errno != ENOENT {
            throw MirrorFailure("cannot stat \(object.localPath): \(String(cString: strerror(errno)))")
        }
        guard info.st_size == object.size, (info.st_mode & S_IFMT) == S_IFREG else {
            throw MirrorFailure("\(object.localPath) is missing or not \(object.size) bytes as the catalog says (run modelctl verify)")
        }
    }

    /// Runs one storage call, turning its error into a failure (usage errors marked as such).
    private func storage<T>(_ body: () throws(S3Error) -> T) throws(MirrorFailure) -> T {
        do { return try body() } catch {
            if case .usage = error { throw MirrorFailure(error.description, isUsage: true) }
            throw MirrorFailure(error.description)
        }
    }
}


/// Entry names of `dir` under the models directory, for `MirrorObject.jsonNames`: none when it
/// does not exist (no rules or snapshots yet); any other error names the directory.
func modelsSubdirectoryLister(_ modelsDir: String) -> (String) throws(MirrorFailure) -> [String] {
    { (dir) throws(MirrorFailure) in
        let path = modelsDir + "/" + dir
        if let names = DurableFile.entries(of: path) { return names }
        if errno == ENOENT { return [] }
        throw MirrorFailure("cannot list \(path): \(String(cString: strerror(errno)))")
    }
}
