import ContentDigest
import CurlTransport
import Foundation
import ObjectStorage
import ObjectStorageCurl

/// A bucket in a directory, for in-process tests of the libraries that drive one (BucketMirror,
/// EventShipping): object bodies and multipart parts are real files, with S3's answers where
/// those libraries depend on them — `If-None-Match: *` (412 → `.alreadyExists`), a body checked
/// against its SHA-256, `NoSuchUpload` for an unknown upload id. `log` records every write in
/// order ("put K", "create K", "part K N", "complete K", "abort K", "delete K") so a test can
/// check the order a run wrote in. The RGW suites run the same code against a real store.
public final class DirectoryBucket: ObjectBucket, @unchecked Sendable {
    public let root: String
    private let lock = NSLock()
    private var attributes: [String: ObjectAttributes] = [:]
    private var uploads: [String: (key: String, attributes: ObjectAttributes, parts: [Int: PartListPage.Part])] = [:]
    private var writes: [String] = []
    private var partsBeforeFailure: Int?

    public init(root: String) throws {
        self.root = root
        try FileManager.default.createDirectory(atPath: root + "/objects", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/parts", withIntermediateDirectories: true)
    }

    public var log: [String] { locked { writes } }

    /// The next `count` part uploads succeed and the one after fails (a run killed mid-upload);
    /// later ones succeed again.
    public func failPartUpload(after count: Int) { locked { partsBeforeFailure = count } }

    public func head(_ key: String) throws(S3Error) -> ObjectHead? {
        locked {
            guard let stored = attributes[key] else { return nil }
            return ObjectHead(size: Self.size(of: objectPath(key)), sha256: stored.sha256, contentType: stored.contentType, cacheControl: stored.cacheControl)
        }
    }

    public func get(_ key: String) throws(S3Error) -> [UInt8] {
        guard try head(key) != nil, let data = FileManager.default.contents(atPath: objectPath(key)) else {
            throw Self.serviceError(404, "NoSuchKey", key)
        }
        return [UInt8](data)
    }

    public func list(prefix: String, pageSize: Int?) throws(S3Error) -> [ListedObject] {
        locked { attributes.keys.filter { $0.hasPrefix(prefix) }.sorted().map { ListedObject(key: $0, size: Self.size(of: objectPath($0)), etag: nil) } }
    }

    public func delete(_ key: String) throws(S3Error) {
        locked {
            attributes[key] = nil
            unlink(objectPath(key))
            writes.append("delete \(key)")
        }
    }

    public func upload(_ key: String, file path: String, size: Int64, sha256: String, attributes: ObjectAttributes,
                       createOnly: Bool, plan: PartPlan?, progress: (any CurlProgressObserver)?) throws(S3Error) -> PutOutcome {
        let bytes = try Self.read(path, offset: 0, length: size)
        guard SHA256Hex.of(bytes) == sha256 else { throw Self.serviceError(400, "XAmzContentSHA256Mismatch", key) }
        return try store(key, bytes, attributes, createOnly: createOnly, write: "put \(key)")
    }

    public func createMultipartUpload(_ key: String, attributes: ObjectAttributes) throws(S3Error) -> String {
        locked {
            let id = UUID().uuidString
            uploads[id] = (key, attributes, [:])
            writes.append("create \(key)")
            return id
        }
    }

    public func listParts(_ key: String, uploadID: String) throws(S3Error) -> [PartListPage.Part] {
        try locked { () throws(S3Error) in
            guard let upload = uploads[uploadID], upload.key == key else { throw Self.serviceError(404, "NoSuchUpload", key) }
            return upload.parts.values.sorted { $0.partNumber < $1.partNumber }
        }
    }

    /// Sequential whatever `concurrency` says: the order of parts is then the log's.
    public func uploadMissingParts(_ key: String, uploadID: String, file path: String, plan: PartPlan, done: [PartListPage.Part],
                                   concurrency: Int, progress: (any CurlProgressObserver)?) throws(S3Error) -> [CompletedPart] {
        var completed: [CompletedPart] = []
        for number in 1...plan.partCount {
            let range = plan.range(ofPart: number)
            if let part = done.first(where: { $0.partNumber == number && $0.size == range.length }) {
                completed.append(CompletedPart(partNumber: number, etag: part.etag))
                continue
            }
            let bytes = try Self.read(path, offset: range.offset, length: range.length)
            let part = try locked { () throws(S3Error) -> PartListPage.Part in
                if let remaining = partsBeforeFailure {
                    partsBeforeFailure = remaining - 1
                    if remaining == 0 { partsBeforeFailure = nil; throw S3Error.transport("UploadPart \(key) #\(number): connection reset (injected)") }
                }
                guard uploads[uploadID]?.key == key else { throw Self.serviceError(404, "NoSuchUpload", key) }
                let part = PartListPage.Part(partNumber: number, etag: SHA256Hex.of(bytes), size: range.length)
                guard FileManager.default.createFile(atPath: "\(root)/parts/\(uploadID)-\(number)", contents: Data(bytes)) else {
                    throw S3Error.local("cannot write part \(number) of \(key)")
                }
                uploads[uploadID]!.parts[number] = part
                writes.append("part \(key) \(number)")
                return part
            }
            completed.append(CompletedPart(partNumber: number, etag: part.etag))
        }
        return completed
    }

    public func completeMultipartUpload(_ key: String, uploadID: String, parts: [CompletedPart], createOnly: Bool) throws(S3Error) -> PutOutcome {
        guard let upload = locked({ uploads[uploadID] }), upload.key == key else { throw Self.serviceError(404, "NoSuchUpload", key) }
        var bytes: [UInt8] = []
        for part in parts {
            guard upload.parts[part.partNumber]?.etag == part.etag,
                  let data = FileManager.default.contents(atPath: "\(root)/parts/\(uploadID)-\(part.partNumber)") else {
                throw Self.serviceError(400, "InvalidPart", key)
            }
            bytes += data
        }
        let outcome = try store(key, bytes, upload.attributes, createOnly: createOnly, write: "complete \(key)")
        dropUpload(uploadID)
        return outcome
    }

    public func abortMultipartUpload(_ key: String, uploadID: String) throws(S3Error) {
        dropUpload(uploadID)
        locked { writes.append("abort \(key)") }
    }

    private func store(_ key: String, _ bytes: [UInt8], _ stored: ObjectAttributes, createOnly: Bool, write: String) throws(S3Error) -> PutOutcome {
        try locked { () throws(S3Error) -> PutOutcome in
            if createOnly && attributes[key] != nil { return .alreadyExists }
            guard FileManager.default.createFile(atPath: objectPath(key), contents: Data(bytes)) else { throw S3Error.local("cannot write \(key)") }
            attributes[key] = stored
            writes.append(write)
            return .created(etag: nil)
        }
    }

    private func dropUpload(_ id: String) {
        locked {
            for number in uploads[id].map({ Array($0.parts.keys) }) ?? [] { unlink("\(root)/parts/\(id)-\(number)") }
            uploads[id] = nil
        }
    }

    /// Keys hold `/` and any other character: bodies are named by the key's SHA-256.
    private func objectPath(_ key: String) -> String { root + "/objects/" + SHA256Hex.of(Array(key.utf8)) }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private static func size(of path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : -1
    }

    private static func read(_ path: String, offset: Int64, length: Int64) throws(S3Error) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw S3Error.local("cannot open \(path)") }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(offset))
            let data = try handle.read(upToCount: Int(length)) ?? Data()
            guard data.count == length else { throw S3Error.local("\(path): short read") }
            return [UInt8](data)
        } catch {
            throw error as? S3Error ?? S3Error.local("\(path): \(error)")
        }
    }

    private static func serviceError(_ status: Int, _ code: String, _ key: String) -> S3Error {
        .service(S3ServiceError(status: status, code: code, message: "", requestID: nil, request: key))
    }
}
