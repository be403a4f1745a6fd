import BinaryText
import ContentDigest
import CurlTransport
import DurableFiles
import Glibc
import ObjectStorage

extension S3Client {
    /// Uploads a whole local file whose size and SHA-256 are known: one PutObject, or with
    /// `plan` a multipart upload with that plan's fixed part size (each part's SHA-256 is
    /// computed from the file as it is sent, so the store checks every byte). On any failure a
    /// started multipart upload is aborted, so nothing half-written stays behind.
    public func upload(_ key: String, file path: String, size: Int64, sha256: String, attributes: ObjectAttributes,
                       createOnly: Bool, plan: PartPlan? = nil, progress: (any CurlProgressObserver)? = nil) throws(S3Error) -> PutOutcome {
        guard let plan else {
            return try put(key, body: .file(path: path, offset: 0, length: size), sha256: sha256, attributes: attributes,
                           createOnly: createOnly, progress: progress)
        }
        let uploadID = try createMultipartUpload(key, attributes: attributes)
        do {
            let parts = try uploadMissingParts(key, uploadID: uploadID, file: path, plan: plan, done: [], progress: progress)
            return try completeMultipartUpload(key, uploadID: uploadID, parts: parts, createOnly: createOnly)
        } catch {
            // Best effort on the error path: the upload's own error is the one to report, and an
            // upload left behind is expired by the bucket's lifecycle rule.
            try? abortMultipartUpload(key, uploadID: uploadID)
            throw error
        }
    }

    /// Uploads every part of `plan` not in `done` (as ListParts reported it; a listed part of
    /// the wrong size is sent again), `concurrency` parts at a time, and returns all parts for
    /// Complete, in order. Each part is hashed just before it is sent, by the thread sending it.
    public func uploadMissingParts(_ key: String, uploadID: String, file path: String, plan: PartPlan, done: [PartListPage.Part],
                                   concurrency: Int = 1, progress: (any CurlProgressObserver)? = nil) throws(S3Error) -> [CompletedPart] {
        let reusable = Dictionary(done.filter { $0.partNumber >= 1 && $0.partNumber <= plan.partCount && $0.size == plan.range(ofPart: $0.partNumber).length }
            .map { ($0.partNumber, $0.etag) }, uniquingKeysWith: { first, _ in first })
        let combined = progress.map { CombinedProgress($0, alreadySent: reusable.keys.reduce(0) { $0 + plan.range(ofPart: $1).length }) }
        defer { combined?.finish() }
        let client = self
        return try Parallel.map(plan.partCount, width: concurrency) { index throws(S3Error) -> CompletedPart in
            let number = index + 1
            if let etag = reusable[number] { return CompletedPart(partNumber: number, etag: etag) }
            let range = plan.range(ofPart: number)
            let partSHA: String
            do throws(IOFailure) { partSHA = try SHA256Hex.of(path: path, offset: range.offset, length: range.length) } catch {
                throw S3Error.local(error.description)
            }
            return try client.uploadPart(key, uploadID: uploadID, number: number, body: .file(path: path, offset: range.offset, length: range.length),
                                         sha256: partSHA, progress: combined?.observer(forJob: number))
        }
    }
}
