import Testing
@testable import ObjectStorage

struct XMLResponseTests {
    static let rgwInitiate = """
        <?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">\
        <Bucket>b</Bucket><Key>models/a.bin</Key><UploadId>2~i5UN&amp;x</UploadId></InitiateMultipartUploadResult>
        """
    /// moto's order: UploadId before Key.
    static let motoInitiate = """
        <InitiateMultipartUploadResult><Bucket>b</Bucket><UploadId>2~i5UN&amp;x</UploadId><Key>models/a.bin</Key>\
        </InitiateMultipartUploadResult>
        """

    @Test(arguments: [rgwInitiate, motoInitiate])
    func uploadID_doesNotDependOnElementOrder(_ body: String) throws {
        #expect(try S3ResponseParser.uploadID(Array(body.utf8)) == "2~i5UN&x")
    }

    @Test func objectList_readsPagesAndEntities() throws {
        let body = """
            <?xml version="1.0"?>
            <!-- a comment --><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>b</Name><IsTruncated>true</IsTruncated>
              <Contents><Size>12</Size><Key>a&lt;b&#x2F;c&#252;</Key><ETag>&quot;abc&quot;</ETag></Contents>
              <Contents><Key><![CDATA[x&y]]></Key><Size>0</Size></Contents>
              <NextContinuationToken>tok+/=</NextContinuationToken>
            </ListBucketResult>
            """
        let page = try S3ResponseParser.objectList(Array(body.utf8))
        #expect(page.objects == [ListedObject(key: "a<b/cü", size: 12, etag: "\"abc\""), ListedObject(key: "x&y", size: 0, etag: nil)])
        #expect(page.nextContinuationToken == "tok+/=")
    }

    @Test func objectList_untruncatedHasNoToken() throws {
        let page = try S3ResponseParser.objectList(Array("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>".utf8))
        #expect(page == ObjectListPage(objects: [], nextContinuationToken: nil))
    }

    @Test func completion_200WithErrorBody_isAServiceError() {
        let body = "<?xml version=\"1.0\"?>\n  \n<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message><RequestId>r1</RequestId></Error>"
        #expect(throws: S3Error.service(S3ServiceError(status: 200, code: "InternalError", message: "We encountered an internal error.",
                                                         requestID: "r1", request: "Complete"))) {
            try S3ResponseParser.completion(Array(body.utf8), request: "Complete")
        }
    }

    @Test func completion_successReturnsETag() throws {
        let body = "<CompleteMultipartUploadResult><ETag>\"e-3\"</ETag><Key>k</Key></CompleteMultipartUploadResult>"
        #expect(try S3ResponseParser.completion(Array(body.utf8), request: "Complete") == "\"e-3\"")
    }

    @Test func partsAndUploads_followMarkers() throws {
        let parts = """
            <ListPartsResult><IsTruncated>true</IsTruncated><NextPartNumberMarker>2</NextPartNumberMarker>\
            <Part><ETag>"p2"</ETag><PartNumber>2</PartNumber><Size>5242880</Size></Part>\
            <Part><PartNumber>1</PartNumber><Size>5242880</Size><ETag>"p1"</ETag></Part></ListPartsResult>
            """
        let page = try S3ResponseParser.partList(Array(parts.utf8))
        #expect(page.parts.map(\.partNumber) == [2, 1])
        #expect(page.nextPartNumberMarker == 2)
        let uploads = """
            <ListMultipartUploadsResult><IsTruncated>true</IsTruncated><NextUploadIdMarker>u2</NextUploadIdMarker>\
            <NextKeyMarker>k2</NextKeyMarker><Upload><UploadId>u1</UploadId><Key>k1</Key><Initiated>2010-11-10T20:48:33.000Z</Initiated></Upload>\
            </ListMultipartUploadsResult>
            """
        let list = try S3ResponseParser.uploadList(Array(uploads.utf8))
        #expect(list.uploads == [.init(key: "k1", uploadID: "u1")])
        #expect(list.next?.keyMarker == "k2" && list.next?.uploadIDMarker == "u2")
    }

    @Test func errorDocument_isRead() {
        let body = "<Error><Code>SignatureDoesNotMatch</Code><RequestId>tx1</RequestId><Message></Message></Error>"
        let error = S3ResponseParser.error(Array(body.utf8), status: 403, request: "PUT /b/k")
        #expect(error?.code == "SignatureDoesNotMatch")
        #expect(error?.description == "PUT /b/k: 403 SignatureDoesNotMatch (check the secret access key and --region) [request id tx1]")
        #expect(S3ResponseParser.error(Array("not xml".utf8), status: 500, request: "x") == nil)
    }

    @Test("malformed or hostile XML is an invalidResponse", arguments: [
        "", "<a>", "<a></b>", "<a>&bogus;</a>", "<a/><b/>", "<a x='>'", "<a><!-- x</a>",
        String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100),
    ])
    func malformed(_ body: String) {
        #expect(throws: S3Error.self) { try XMLElement.parse(Array(body.utf8)) }
    }

    @Test func attributesAndPrefixes_areIgnored() throws {
        let root = try XMLElement.parse(Array("<s3:R a=\"1>2\" b='x'><s3:K/><V>t</V ></s3:R>".utf8))
        #expect(root.name == "R")
        #expect(root.children.map(\.name) == ["K", "V"])
        #expect(root.value("V") == "t")
    }
}
