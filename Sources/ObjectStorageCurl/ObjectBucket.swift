import CurlTransport
import ObjectStorage

/// The bucket operations `modelctl mirror` and `events ship` run, as S3Client performs them.
/// The libraries that drive a bucket (BucketMirror, EventShipping) take this rather than the
/// client, so their tests can run them in-process against a directory-backed bucket; the real
/// client is still what modelctl passes (and what the RGW suites exercise end to end).
public protocol ObjectBucket: Sendable {
    func head(_ key: String) throws(S3Error) -> ObjectHead?
    func get(_ key: String) throws(S3Error) -> [UInt8]
    func list(prefix: String, pageSize: Int?) throws(S3Error) -> [ListedObject]
    func delete(_ key: String) throws(S3Error)
    func upload(_ key: String, file path: String, size: Int64, sha256: String, attributes: ObjectAttributes,
                createOnly: Bool, plan: PartPlan?, progress: (any CurlProgressObserver)?) throws(S3Error) -> PutOutcome
    func createMultipartUpload(_ key: String, attributes: ObjectAttributes) throws(S3Error) -> String
    func listParts(_ key: String, uploadID: String) throws(S3Error) -> [PartListPage.Part]
    func uploadMissingParts(_ key: String, uploadID: String, file path: String, plan: PartPlan, done: [PartListPage.Part],
                            concurrency: Int, progress: (any CurlProgressObserver)?) throws(S3Error) -> [CompletedPart]
    func completeMultipartUpload(_ key: String, uploadID: String, parts: [CompletedPart], createOnly: Bool) throws(S3Error) -> PutOutcome
    func abortMultipartUpload(_ key: String, uploadID: String) throws(S3Error)
}

extension S3Client: ObjectBucket {}
