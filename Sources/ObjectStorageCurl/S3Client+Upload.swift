import BinaryText
import Crypto
import CurlTransport
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
            let partSHA = try Self.sha256(of: path, offset: range.offset, length: range.length)
            return try client.uploadPart(key, uploadID: uploadID, number: number, body: .file(path: path, offset: range.offset, length: range.length),
                                         sha256: partSHA, progress: combined?.observer(forJob: number))
        }
    }

    /// Lowercase hex SHA-256 of `length` bytes of the file from `offset`, read in 1 MiB chunks.
    public static func sha256(of path: String, offset: Int64, length: Int64) throws(S3Error) -> String {
        let source = try FileRangeSource(path: path, offset: offset, length: length)
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count: Int
            do { count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) } } catch {
                throw error as? S3Error ?? S3Error.local("\(error)")
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return Hex.encode(hasher.finalize())
    }
}
