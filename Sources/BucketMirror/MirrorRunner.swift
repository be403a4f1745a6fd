import CurlTransport
import Foundation
import ModelCatalog
import ModelMirror
import ObjectStorage
import ObjectStorageCurl

/// The I/O around MirrorPlan: reads the catalog and the local JSON files, HEADs every key,
/// then uploads in plan order. Requests go `concurrency` at a time only where order does not
/// matter (HEADs, the parts of one file, a batch of files): each batch of the plan finishes
/// before the next starts, which is the consistency guarantee.
struct MirrorRunner {
    let client: S3Client
    let modelsDir: String
    let prefix: String
    let pointerMaxAge: Int
    let multipartThreshold: Int64
    let partSize: Int64?
    let concurrency: Int

    struct Summary {
        var uploaded = 0, skipped = 0, deleted = 0
        var bytes: Int64 = 0

        /// What a run of `pass` would report (for `--dry-run --json`).
        init(pass: Pass) {
            deleted = pass.deletions.count
            uploaded = pass.uploads.uploads.count
            skipped = pass.uploads.steps.count - uploaded - pass.uploads.conflicts.count
            bytes = pass.uploads.bytesToUpload
        }

        init() {}

        var json: String { #"{"uploaded":\#(uploaded),"skipped":\#(skipped),"deleted":\#(deleted),"bytes":\#(bytes)}"# }
    }

    /// What one pass does: the upload plan, then the garbage-collected keys whose wait is over.
    struct Pass {
        let uploads: MirrorPlan
        let deletions: [String]
        /// When the next pending deletion falls due (for --watch), nil when none is pending.
        let secondsUntilNextDeletion: Int64?
    }

    func plan() throws(CLIFailure) -> Pass {
        let catalog: Catalog
        do { catalog = try CatalogStore(directory: modelsDir, publicBaseURL: "").load() } catch {
            throw CLIFailure("cannot read the catalog in \(modelsDir): \(error)")
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
            throw CLIFailure("\(conflict.object.key) already exists in the bucket with other content (size or x-amz-meta-sha256 differ); "
                + "immutable objects are never overwritten (\(plan.conflicts.count) such object(s))")
        }
        let schedule = try scheduleDeletions(catalog, objects)
        let now = Self.now()
        return Pass(uploads: plan, deletions: schedule.due(now: now, maxAge: pointerMaxAge),
                    secondsUntilNextDeletion: schedule.secondsUntilNextDue(now: now, maxAge: pointerMaxAge))
    }

    private static func now() -> Int64 { Timestamp.now().millisecondsSinceEpoch / 1000 }

    /// Brings the deletion schedule up to date: a collected file still in the bucket starts its
    /// wait now (the JSON in place no longer names it, or will not once this pass uploads it);
    /// one already gone is done.
    private func scheduleDeletions(_ catalog: Catalog, _ objects: [MirrorObject]) throws(CLIFailure) -> DeletionSchedule {
        let journal = MirrorJournal(modelsDir: modelsDir)
        var schedule = try journal.deletions()
        let now = Self.now()
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
    private func delete(_ keys: [String], summary: inout Summary) throws(CLIFailure) {
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

    func run(_ pass: Pass) throws(CLIFailure) -> Summary {
        var summary = Summary()
        summary.skipped = pass.uploads.steps.count(where: { $0.action == .skip })
        for batch in pass.uploads.batches {
            // A progress line per batch, on a terminal only (ProgressBar.forTerminal).
            let progress = ProgressBar.forTerminal(total: batch.reduce(0) { $0 + $1.object.size })
            let created: [Bool]
            if batch.count == 1 {
                created = [try upload(batch[0], progress: progress)]
            } else {
                let combined = progress.map { CombinedProgress($0) }
                defer { combined?.finish() }
                let runner = self
                created = try Parallel.map(batch.count, width: concurrency) { index throws(CLIFailure) in
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
    private func upload(_ step: MirrorPlan.Step, progress: (any CurlProgressObserver)?) throws(CLIFailure) -> Bool {
        let object = step.object
        let attributes = ObjectAttributes(contentType: object.contentType, cacheControl: object.cacheControl, sha256: object.sha256)
        let outcome = try step.action == .multipart ? uploadMultipart(object, attributes, progress) : storage { () throws(S3Error) in
            try client.upload(object.key, file: object.localPath, size: object.size, sha256: object.sha256, attributes: attributes,
                              createOnly: object.isImmutable, progress: progress)
        }
        guard outcome == .alreadyExists else { return true }
        let head = try storage { () throws(S3Error) in try client.head(object.key) }
        guard head?.size == object.size, head?.sha256 == object.sha256 else {
            throw CLIFailure("\(object.key) was created concurrently with other content")
        }
        return false
    }

    /// A multipart upload that survives being killed: the upload id is journaled before any part
    /// goes out; a later run lists the parts already in the bucket and sends only the others.
    /// An upload journaled for other bytes or another part size is aborted and started over.
    private func uploadMultipart(_ object: MirrorObject, _ attributes: ObjectAttributes, _ progress: (any CurlProgressObserver)?) throws(CLIFailure) -> PutOutcome {
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
                    throw CLIFailure(error.description)
                }
            } else {
                try? client.abortMultipartUpload(object.key, uploadID: entry.upload_id)
            }
            if resumed == nil { journal.remove(object.key) }
        }
        let uploadID: String
        if let resumed {
            uploadID = resumed.uploadID
            printError("modelctl: resuming \(object.key): \(resumed.done.count) of \(plan.partCount) parts already uploaded")
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
                try? client.abortMultipartUpload(object.key, uploadID: uploadID)
                journal.remove(object.key)
            }
            throw CLIFailure(error.description)
        }
    }

    /// The JSON files under models/ that exist: the pointers, details/<N>.json and the rules.
    private func localJSON() throws(CLIFailure) -> [LocalJSON] {
        var files: [LocalJSON] = []
        for name in MirrorObject.jsonNames(list: listModelsSubdirectory(modelsDir)) {
            let path = modelsDir + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            files.append(LocalJSON(name: name, localPath: path, size: Int64(data.count), sha256: S3RequestBuilder.sha256Hex(Array(data))))
        }
        return files
    }

    /// A model file must be there with its catalog size before anything is sent.
    private func checkLocal(_ object: MirrorObject) throws(CLIFailure) {
        guard object.kind == .modelFile else { return }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: object.localPath),
              (attributes[.size] as? NSNumber)?.int64Value == object.size else {
            throw CLIFailure("\(object.localPath) is missing or not \(object.size) bytes as the catalog says (run modelctl verify)")
        }
    }

    /// Runs one storage call, turning its error into the CLI's (usage errors exit 2).
    private func storage<T>(_ body: () throws(S3Error) -> T) throws(CLIFailure) -> T {
        do { return try body() } catch {
            if case .usage = error { throw CLIFailure(error.description, exitCode: 2) }
            throw CLIFailure(error.description)
        }
    }
}

/// Entry names of `dir` under the models directory (empty when absent), for `MirrorObject.jsonNames`.
func listModelsSubdirectory(_ modelsDir: String) -> (String) -> [String] {
    { dir in (try? FileManager.default.contentsOfDirectory(atPath: modelsDir + "/" + dir)) ?? [] }
}
