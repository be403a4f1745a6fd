import CurlTransport
import ObjectStorage

/// What HEAD tells about a stored object.
public struct ObjectHead: Sendable, Equatable {
    public let size: Int64
    /// `x-amz-meta-sha256`, when the object was stored with it.
    public let sha256: String?
    public let etag: String?
    public let contentType: String?
    public let cacheControl: String?

    public init(size: Int64, sha256: String?, etag: String? = nil, contentType: String? = nil, cacheControl: String? = nil) {
        self.size = size
        self.sha256 = sha256
        self.etag = etag
        self.contentType = contentType
        self.cacheControl = cacheControl
    }
}

extension S3Client {
    /// HEAD `key`: nil when there is no such object.
    public func head(_ key: String) throws(S3Error) -> ObjectHead? {
        let response = try perform(builder.headObject(key: key), accepting: [404])
        guard response.status != 404 else { return nil }
        guard let size = response.header("content-length").flatMap({ Int64($0) }) else {
            throw S3Error.invalidResponse("HeadObject \(key): no Content-Length")
        }
        return ObjectHead(size: size, sha256: response.header("x-amz-meta-sha256"), etag: response.header("etag"),
                          contentType: response.header("content-type"), cacheControl: response.header("cache-control"))
    }

    /// GET `key` into memory (small objects: JSON documents, test fixtures).
    public func get(_ key: String) throws(S3Error) -> [UInt8] {
        try perform(builder.getObject(key: key)).body
    }

    /// PUT a whole body. With `createOnly`, an existing key is left as it is and the answer is
    /// `.alreadyExists` (412) so the caller can confirm it by HEAD.
    public func put(_ key: String, body: S3Request.Body, sha256: String, attributes: ObjectAttributes,
                    createOnly: Bool = false, progress: (any CurlProgressObserver)? = nil) throws(S3Error) -> PutOutcome {
        let request = builder.putObject(key: key, body: body, sha256: sha256, attributes: attributes, createOnly: createOnly)
        let response = try perform(request, accepting: createOnly ? [412] : [], progress: progress)
        return response.status == 412 ? .alreadyExists : .created(etag: response.header("etag"))
    }

    /// DELETE `key`; deleting a missing key succeeds (S3 answers 204 either way).
    public func delete(_ key: String) throws(S3Error) {
        _ = try perform(builder.deleteObject(key: key), accepting: [404])
    }

    /// Every object under `prefix`, following continuation tokens (`pageSize` keys per request).
    public func list(prefix: String, pageSize: Int? = nil) throws(S3Error) -> [ListedObject] {
        var objects: [ListedObject] = []
        var token: String?
        repeat {
            let page = try S3ResponseParser.objectList(perform(builder.listObjectsV2(prefix: prefix, continuationToken: token, maxKeys: pageSize)).body)
            objects += page.objects
            token = page.nextContinuationToken
        } while token != nil
        return objects
    }
}

public enum PutOutcome: Sendable, Equatable {
    case created(etag: String?)
    /// `If-None-Match: *` found the key already there (412); nothing was written.
    case alreadyExists
}
