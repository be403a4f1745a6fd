import CurlTransport
import ObjectStorage

extension S3Client {
    /// Starts a multipart upload; the object's attributes are fixed now.
    public func createMultipartUpload(_ key: String, attributes: ObjectAttributes) throws(S3Error) -> String {
        try S3ResponseParser.uploadID(perform(builder.createMultipartUpload(key: key, attributes: attributes)).body)
    }

    /// Uploads part `number` (its bytes and their SHA-256) and returns the part's ETag.
    public func uploadPart(_ key: String, uploadID: String, number: Int, body: S3Request.Body, sha256: String,
                           progress: (any CurlProgressObserver)? = nil) throws(S3Error) -> CompletedPart {
        let response = try perform(builder.uploadPart(key: key, uploadID: uploadID, partNumber: number, body: body, sha256: sha256), progress: progress)
        guard let etag = response.header("etag"), !etag.isEmpty else {
            throw S3Error.invalidResponse("UploadPart \(key) #\(number): no ETag")
        }
        return CompletedPart(partNumber: number, etag: etag)
    }

    /// Completes the upload. A 200 whose body is an `<Error>` throws like any other error;
    /// with `createOnly`, 412 means another writer created the key first.
    public func completeMultipartUpload(_ key: String, uploadID: String, parts: [CompletedPart],
                                        createOnly: Bool = false) throws(S3Error) -> PutOutcome {
        let request = builder.completeMultipartUpload(key: key, uploadID: uploadID, parts: parts, createOnly: createOnly)
        let label = "\(request.operation) \(request.method) \(request.url)"
        // The body decides (a 200 may carry an <Error>), so parsing is inside the retried attempt.
        return try withRetries(request) { () throws(S3Error) in
            let response = try performOnce(request, accepting: createOnly ? [412] : [])
            if response.status == 412 { return .alreadyExists }
            return .created(etag: try S3ResponseParser.completion(response.body, request: label))
        }
    }

    public func abortMultipartUpload(_ key: String, uploadID: String) throws(S3Error) {
        _ = try perform(builder.abortMultipartUpload(key: key, uploadID: uploadID), accepting: [404])
    }

    /// Every part uploaded so far, following part-number markers.
    public func listParts(_ key: String, uploadID: String) throws(S3Error) -> [PartListPage.Part] {
        var parts: [PartListPage.Part] = []
        var marker: Int?
        repeat {
            let page = try S3ResponseParser.partList(perform(builder.listParts(key: key, uploadID: uploadID, partNumberMarker: marker)).body)
            parts += page.parts
            marker = page.nextPartNumberMarker
        } while marker != nil
        return parts
    }

    /// Every unfinished upload under `prefix`, following key and upload-id markers.
    public func listMultipartUploads(prefix: String) throws(S3Error) -> [UploadListPage.Upload] {
        var uploads: [UploadListPage.Upload] = []
        var marker: (keyMarker: String, uploadIDMarker: String)?
        repeat {
            let request = builder.listMultipartUploads(prefix: prefix, keyMarker: marker?.keyMarker, uploadIDMarker: marker?.uploadIDMarker)
            let page = try S3ResponseParser.uploadList(perform(request).body)
            uploads += page.uploads
            marker = page.next
        } while marker != nil
        return uploads
    }
}
