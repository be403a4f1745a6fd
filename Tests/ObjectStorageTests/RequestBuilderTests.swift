import ContentDigest
import Testing
@testable import ObjectStorage

struct RequestBuilderTests {
    static let path = try! S3RequestBuilder(endpoint: S3Endpoint(url: "http://127.0.0.1:7480", bucket: "models-bucket"))
    static let virtual = try! S3RequestBuilder(endpoint: S3Endpoint(url: "https://acct.r2.cloudflarestorage.com/", bucket: "models-bucket", region: "auto"))
    static let sha = String(repeating: "ab", count: 32)

    @Test func everyRequest_carriesThePayloadHash_SPEC9_1() {
        let attributes = ObjectAttributes(contentType: "application/json")
        let requests = [
            Self.path.headObject(key: "k"), Self.path.deleteObject(key: "k"), Self.path.getObject(key: "k"),
            Self.path.listObjectsV2(prefix: "p"), Self.path.createMultipartUpload(key: "k", attributes: attributes),
            Self.path.abortMultipartUpload(key: "k", uploadID: "u"), Self.path.listParts(key: "k", uploadID: "u"),
            Self.path.listMultipartUploads(prefix: "p"),
        ]
        for request in requests { #expect(request.header("x-amz-content-sha256") == S3RequestBuilder.emptySHA256, "\(request.operation)") }
        let put = Self.path.putObject(key: "k", body: .file(path: "/f", offset: 0, length: 3), sha256: Self.sha, attributes: attributes, createOnly: false)
        #expect(put.header("x-amz-content-sha256") == Self.sha)
    }

    @Test func putObject_modelFile_SPEC9_1() {
        let attributes = ObjectAttributes(contentType: "application/octet-stream", cacheControl: "public, max-age=31536000, immutable", sha256: Self.sha)
        let put = Self.path.putObject(key: "models/a b.bin", body: .file(path: "/m", offset: 0, length: 10), sha256: Self.sha,
                                      attributes: attributes, createOnly: true)
        #expect(put.method == "PUT")
        #expect(put.url == "http://127.0.0.1:7480/models-bucket/models/a%20b.bin")
        #expect(put.headers.map { "\($0.name): \($0.value)" } == [
            "Content-Type: application/octet-stream", "Cache-Control: public, max-age=31536000, immutable",
            "x-amz-meta-sha256: \(Self.sha)", "If-None-Match: *", "x-amz-content-sha256: \(Self.sha)",
        ])
    }

    @Test func virtualHost_putsTheBucketInTheHost() {
        #expect(Self.virtual.headObject(key: "models/x.bin").url == "https://models-bucket.acct.r2.cloudflarestorage.com/models/x.bin")
        #expect(Self.virtual.listObjectsV2(prefix: "m/").url == "https://models-bucket.acct.r2.cloudflarestorage.com/?list-type=2&prefix=m%2F")
        #expect(Self.virtual.endpoint.sigV4Provider == "aws:amz:auto:s3")
    }

    @Test func complete_bodyIsSortedEscapedXMLWithItsHash() {
        let request = Self.path.completeMultipartUpload(key: "k", uploadID: "u+1",
                                                        parts: [CompletedPart(partNumber: 2, etag: "\"b\""), CompletedPart(partNumber: 1, etag: "\"a\"")],
                                                        createOnly: true)
        let xml = #"<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part><PartNumber>1</PartNumber><ETag>&quot;a&quot;</ETag></Part><Part><PartNumber>2</PartNumber><ETag>&quot;b&quot;</ETag></Part></CompleteMultipartUpload>"#
        #expect(request.body == .bytes(Array(xml.utf8)))
        #expect(request.url == "http://127.0.0.1:7480/models-bucket/k?uploadId=u%2B1")
        #expect(request.header("Content-Type") == "application/xml")
        #expect(request.header("If-None-Match") == "*")
        #expect(request.header("x-amz-content-sha256") == SHA256Hex.of(Array(xml.utf8)))
    }

    @Test func sha256Hex_knownValue() {
        #expect(SHA256Hex.of(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Hex.of([]) == S3RequestBuilder.emptySHA256)
    }
}
