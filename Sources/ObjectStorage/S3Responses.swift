/// One object in a listing.
public struct ListedObject: Sendable, Equatable {
    public let key: String
    public let size: Int64
    public let etag: String?

    public init(key: String, size: Int64, etag: String?) {
        self.key = key
        self.size = size
        self.etag = etag
    }
}

/// A ListObjectsV2 page; `nextContinuationToken` is set while the listing is truncated.
public struct ObjectListPage: Sendable, Equatable {
    public let objects: [ListedObject]
    public let nextContinuationToken: String?
}

/// A ListParts page; `nextPartNumberMarker` is set while it is truncated.
public struct PartListPage: Sendable, Equatable {
    public struct Part: Sendable, Equatable {
        public let partNumber: Int
        public let etag: String
        public let size: Int64

        public init(partNumber: Int, etag: String, size: Int64) {
            self.partNumber = partNumber
            self.etag = etag
            self.size = size
        }
    }
    public let parts: [Part]
    public let nextPartNumberMarker: Int?
}

/// A ListMultipartUploads page; the next markers are set while it is truncated.
public struct UploadListPage: Sendable, Equatable {
    public struct Upload: Sendable, Equatable {
        public let key: String
        public let uploadID: String
    }
    public let uploads: [Upload]
    public let next: (keyMarker: String, uploadIDMarker: String)?

    public static func == (lhs: UploadListPage, rhs: UploadListPage) -> Bool {
        lhs.uploads == rhs.uploads && lhs.next?.keyMarker == rhs.next?.keyMarker && lhs.next?.uploadIDMarker == rhs.next?.uploadIDMarker
    }
}

/// Turns response bodies into values. Every parser looks elements up by name, so element order
/// and unknown elements do not matter; a missing required element is an invalidResponse.
public enum S3ResponseParser {
    /// The `<Error>` document of a failed request, or nil when the body is not one.
    public static func error(_ body: [UInt8], status: Int, request: String) -> S3ServiceError? {
        // A body that is not an S3 error document is no S3 error; the status code still fails the call.
        guard let root = try? XMLElement.parse(body), root.name == "Error" else { return nil }
        return S3ServiceError(status: status, code: root.value("Code") ?? "UnknownError", message: root.value("Message") ?? "",
                              requestID: root.value("RequestId"), request: request)
    }

    public static func objectList(_ body: [UInt8]) throws(S3Error) -> ObjectListPage {
        let root = try document(body, "ListBucketResult")
        var objects: [ListedObject] = []
        for entry in root.children("Contents") {
            guard let key = entry.value("Key"), let size = entry.value("Size").flatMap({ Int64($0) }) else {
                throw S3Error.invalidResponse("ListObjectsV2: a Contents entry lacks Key or Size")
            }
            objects.append(ListedObject(key: key, size: size, etag: entry.value("ETag")))
        }
        var next: String?
        if isTruncated(root) {
            guard let token = root.value("NextContinuationToken"), !token.isEmpty else {
                throw S3Error.invalidResponse("ListObjectsV2: truncated without NextContinuationToken")
            }
            next = token
        }
        return ObjectListPage(objects: objects, nextContinuationToken: next)
    }

    public static func uploadID(_ body: [UInt8]) throws(S3Error) -> String {
        let root = try document(body, "InitiateMultipartUploadResult")
        guard let id = root.value("UploadId"), !id.isEmpty else {
            throw S3Error.invalidResponse("CreateMultipartUpload: no UploadId")
        }
        return id
    }

    /// A Complete answer: AWS may answer 200 and still report an error in the body (it streams
    /// whitespace while it assembles the parts), so the body decides, not the status.
    public static func completion(_ body: [UInt8], request: String) throws(S3Error) -> String? {
        let root: XMLElement
        do { root = try XMLElement.parse(body) } catch {
            throw S3Error.invalidResponse("CompleteMultipartUpload: \(error)")
        }
        if root.name == "Error" {
            throw S3Error.service(S3ServiceError(status: 200, code: root.value("Code") ?? "UnknownError", message: root.value("Message") ?? "",
                                                 requestID: root.value("RequestId"), request: request))
        }
        guard root.name == "CompleteMultipartUploadResult" else {
            throw S3Error.invalidResponse("CompleteMultipartUpload: root element <\(root.name)>")
        }
        return root.value("ETag")
    }

    public static func partList(_ body: [UInt8]) throws(S3Error) -> PartListPage {
        let root = try document(body, "ListPartsResult")
        var parts: [PartListPage.Part] = []
        for entry in root.children("Part") {
            guard let number = entry.value("PartNumber").flatMap({ Int($0) }), let etag = entry.value("ETag"),
                  let size = entry.value("Size").flatMap({ Int64($0) }) else {
                throw S3Error.invalidResponse("ListParts: a Part lacks PartNumber, ETag or Size")
            }
            parts.append(.init(partNumber: number, etag: etag, size: size))
        }
        var next: Int?
        if isTruncated(root) {
            guard let marker = root.value("NextPartNumberMarker").flatMap({ Int($0) }) else {
                throw S3Error.invalidResponse("ListParts: truncated without NextPartNumberMarker")
            }
            next = marker
        }
        return PartListPage(parts: parts, nextPartNumberMarker: next)
    }

    public static func uploadList(_ body: [UInt8]) throws(S3Error) -> UploadListPage {
        let root = try document(body, "ListMultipartUploadsResult")
        var uploads: [UploadListPage.Upload] = []
        for entry in root.children("Upload") {
            guard let key = entry.value("Key"), let id = entry.value("UploadId") else {
                throw S3Error.invalidResponse("ListMultipartUploads: an Upload lacks Key or UploadId")
            }
            uploads.append(.init(key: key, uploadID: id))
        }
        var next: (String, String)?
        if isTruncated(root) {
            guard let key = root.value("NextKeyMarker"), let id = root.value("NextUploadIdMarker") else {
                throw S3Error.invalidResponse("ListMultipartUploads: truncated without next markers")
            }
            next = (key, id)
        }
        return UploadListPage(uploads: uploads, next: next)
    }

    private static func document(_ body: [UInt8], _ rootName: String) throws(S3Error) -> XMLElement {
        let root = try XMLElement.parse(body)
        guard root.name == rootName else { throw S3Error.invalidResponse("expected <\(rootName)>, got <\(root.name)>") }
        return root
    }

    private static func isTruncated(_ root: XMLElement) -> Bool { root.value("IsTruncated") == "true" }
}
