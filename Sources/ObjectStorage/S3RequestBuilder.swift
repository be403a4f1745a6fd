import BinaryText
import ContentDigest

/// What a stored object carries besides its bytes; sent on PutObject and CreateMultipartUpload.
public struct ObjectAttributes: Sendable, Equatable {
    public var contentType: String
    public var cacheControl: String?
    /// Stored as `x-amz-meta-sha256`: the mirror's skip check compares it with the catalog.
    public var sha256: String?

    public init(contentType: String, cacheControl: String? = nil, sha256: String? = nil) {
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.sha256 = sha256
    }

    var headers: [(name: String, value: String)] {
        var fields = [(name: "Content-Type", value: contentType)]
        if let cacheControl { fields.append(("Cache-Control", cacheControl)) }
        if let sha256 { fields.append(("x-amz-meta-sha256", sha256)) }
        return fields
    }
}

/// Builds every request the client sends as a value: no I/O, so each is unit-tested.
public struct S3RequestBuilder: Sendable {
    public let endpoint: S3Endpoint

    public init(endpoint: S3Endpoint) { self.endpoint = endpoint }

    /// SHA-256 of the empty body, the payload hash of every request without one.
    public static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// PutObject of a body whose SHA-256 is known (RGW and AWS check it against the bytes).
    /// `createOnly` adds `If-None-Match: *`: an existing key answers 412 and is left untouched.
    public func putObject(key: String, body: S3Request.Body, sha256: String, attributes: ObjectAttributes,
                          createOnly: Bool) -> S3Request {
        var headers = attributes.headers
        if createOnly { headers.append(("If-None-Match", "*")) }
        return request("PUT", key: key, headers: headers, body: body, sha256: sha256, operation: "PutObject")
    }

    public func headObject(key: String) -> S3Request {
        request("HEAD", key: key, operation: "HeadObject")
    }

    public func getObject(key: String) -> S3Request {
        request("GET", key: key, operation: "GetObject")
    }

    public func deleteObject(key: String) -> S3Request {
        request("DELETE", key: key, operation: "DeleteObject")
    }

    /// One page of ListObjectsV2 under `prefix`.
    public func listObjectsV2(prefix: String, continuationToken: String? = nil, maxKeys: Int? = nil) -> S3Request {
        var query = [(name: "list-type", value: "2"), (name: "prefix", value: prefix)]
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        if let maxKeys { query.append(("max-keys", String(maxKeys))) }
        return request("GET", key: nil, query: query, operation: "ListObjectsV2")
    }

    /// CreateMultipartUpload: the object's attributes are fixed here, not on Complete.
    public func createMultipartUpload(key: String, attributes: ObjectAttributes) -> S3Request {
        request("POST", key: key, query: [("uploads", "")], headers: attributes.headers, operation: "CreateMultipartUpload")
    }

    public func uploadPart(key: String, uploadID: String, partNumber: Int, body: S3Request.Body, sha256: String) -> S3Request {
        request("PUT", key: key, query: [("partNumber", String(partNumber)), ("uploadId", uploadID)],
                body: body, sha256: sha256, operation: "UploadPart")
    }

    /// CompleteMultipartUpload with the parts in ascending order.
    public func completeMultipartUpload(key: String, uploadID: String, parts: [CompletedPart], createOnly: Bool) -> S3Request {
        var xml = #"<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
        for part in parts.sorted(by: { $0.partNumber < $1.partNumber }) {
            xml += "<Part><PartNumber>\(part.partNumber)</PartNumber><ETag>\(XMLElement.escaped(part.etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        var headers = [(name: "Content-Type", value: "application/xml")]
        if createOnly { headers.append(("If-None-Match", "*")) }
        let body = Array(xml.utf8)
        return request("POST", key: key, query: [("uploadId", uploadID)], headers: headers, body: .bytes(body),
                       sha256: SHA256Hex.of(body), operation: "CompleteMultipartUpload")
    }

    public func abortMultipartUpload(key: String, uploadID: String) -> S3Request {
        request("DELETE", key: key, query: [("uploadId", uploadID)], operation: "AbortMultipartUpload")
    }

    /// One page of ListParts, after `partNumberMarker`.
    public func listParts(key: String, uploadID: String, partNumberMarker: Int? = nil) -> S3Request {
        var query = [(name: "uploadId", value: uploadID)]
        if let partNumberMarker { query.append(("part-number-marker", String(partNumberMarker))) }
        return request("GET", key: key, query: query, operation: "ListParts")
    }

    /// One page of ListMultipartUploads under `prefix`, after the (key, upload id) markers.
    public func listMultipartUploads(prefix: String, keyMarker: String? = nil, uploadIDMarker: String? = nil) -> S3Request {
        var query = [(name: "uploads", value: ""), (name: "prefix", value: prefix)]
        if let keyMarker { query.append(("key-marker", keyMarker)) }
        if let uploadIDMarker { query.append(("upload-id-marker", uploadIDMarker)) }
        return request("GET", key: nil, query: query, operation: "ListMultipartUploads")
    }


    private func request(_ method: String, key: String?, query: [(name: String, value: String)] = [],
                         headers: [(name: String, value: String)] = [], body: S3Request.Body = .none,
                         sha256: String = emptySHA256, operation: String) -> S3Request {
        // libcurl 7.88 never adds the payload hash itself, yet S3, R2 and RGW require it.
        S3Request(method: method, url: endpoint.url(key: key, query: query),
                  headers: headers + [("x-amz-content-sha256", sha256)], body: body, operation: operation)
    }
}

/// A part already uploaded: its number and the ETag the store answered.
public struct CompletedPart: Sendable, Equatable {
    public let partNumber: Int
    public let etag: String

    public init(partNumber: Int, etag: String) {
        self.partNumber = partNumber
        self.etag = etag
    }
}
