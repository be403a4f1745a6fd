/// How one multipart upload splits a file: one fixed part size for every part but the last
/// (R2 requires equal parts; AWS allows 10,000 parts of 5 MiB to 5 GiB).
public struct PartPlan: Sendable, Equatable {
    public static let maxParts: Int64 = 10_000
    public static let minPartSize: Int64 = 5 << 20
    public static let maxPartSize: Int64 = 5 << 30
    /// A single PutObject may carry at most this much.
    public static let maxSinglePut: Int64 = 5 << 30

    public let objectSize: Int64
    public let partSize: Int64

    /// SPEC §9.1's default: max(8 MiB, size / 10,000 rounded up to 1 MiB).
    public static func defaultPartSize(for size: Int64) -> Int64 {
        let mebibyte: Int64 = 1 << 20
        let spread = (size + maxParts - 1) / maxParts
        return max(8 * mebibyte, (spread + mebibyte - 1) / mebibyte * mebibyte)
    }

    /// A plan with `partSize` (nil: the default); refused when it breaks a store's limits.
    public init(objectSize: Int64, partSize: Int64? = nil) throws(S3Error) {
        let size = partSize ?? Self.defaultPartSize(for: objectSize)
        guard (Self.minPartSize...Self.maxPartSize).contains(size) else {
            throw S3Error.usage("part size \(size) is outside 5 MiB-5 GiB")
        }
        guard objectSize > 0, (objectSize + size - 1) / size <= Self.maxParts else {
            throw S3Error.usage("part size \(size) needs more than 10,000 parts for \(objectSize) bytes")
        }
        self.objectSize = objectSize
        self.partSize = size
    }

    public var partCount: Int { Int((objectSize + partSize - 1) / partSize) }

    /// Byte range of part `number` (1-based).
    public func range(ofPart number: Int) -> (offset: Int64, length: Int64) {
        let offset = Int64(number - 1) * partSize
        return (offset, min(partSize, objectSize - offset))
    }

    /// Multipart when the file exceeds `threshold`, and always above the single-PUT limit.
    public static func usesMultipart(size: Int64, threshold: Int64) -> Bool {
        size > min(threshold, maxSinglePut)
    }
}
