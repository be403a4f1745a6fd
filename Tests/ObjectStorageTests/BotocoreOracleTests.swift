import Foundation
import Testing
@testable import ObjectStorage

/// botocore as an independent oracle: Fixtures/botocore-canonical.json (written by
/// scripts/sigv4-botocore-vectors.py) holds the host, canonical URI and canonical query that
/// botocore signs for each operation; our URL must carry exactly those, in both addressings.
struct BotocoreOracleTests {
    struct Case: Decodable {
        let op: String
        let key: String?
        let prefix: String?
        let uploadId: String?
        let partNumber: Int?
        let partNumberMarker: Int?
        let continuationToken: String?
        let maxKeys: Int?
        let keyMarker: String?
        let uploadIdMarker: String?
        let addressing: String
        let host: String
        let uri: String
        let query: String
    }

    struct Fixture: Decodable { let cases: [Case] }

    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/botocore-canonical.json")
        // A missing or broken fixture must fail the suite, not shrink it to nothing.
        let data = try! Data(contentsOf: url)
        return try! JSONDecoder().decode(Fixture.self, from: data).cases
    }()

    @Test func fixture_coversEveryOperation() {
        #expect(Set(Self.cases.map(\.op)) == ["PutObject", "HeadObject", "CreateMultipartUpload", "UploadPart", "ListParts",
                                              "AbortMultipartUpload", "ListObjectsV2", "ListMultipartUploads"])
        #expect(Self.cases.count > 200)
    }

    @Test func urls_matchBotocoreCanonicalForm() throws {
        for item in Self.cases {
            let endpoint = try S3Endpoint(url: "http://s3.example.com:9000", bucket: "mirror-bucket",
                                          addressing: S3Endpoint.Addressing(rawValue: item.addressing)!)
            let request = try #require(Self.request(item, S3RequestBuilder(endpoint: endpoint)))
            let rest = request.url.dropFirst("http://".count)
            let host = rest.prefix { $0 != "/" }
            let pathAndQuery = rest.dropFirst(host.count).split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            // botocore asks for url-encoded listings (encoding-type=url); we read raw XML keys.
            let expectedQuery = item.query.split(separator: "&").filter { $0 != "encoding-type=url" }.joined(separator: "&")
            #expect(String(host) == item.host, "\(item.op) \(item.addressing) host")
            #expect(String(pathAndQuery[0]) == item.uri, "\(item.op) \(item.addressing) \(item.key ?? "") uri")
            #expect((pathAndQuery.count > 1 ? String(pathAndQuery[1]) : "") == expectedQuery, "\(item.op) \(item.addressing) query")
        }
    }

    static func request(_ item: Case, _ builder: S3RequestBuilder) -> S3Request? {
        let attributes = ObjectAttributes(contentType: "application/octet-stream")
        switch item.op {
        case "PutObject": return builder.putObject(key: item.key!, body: .none, sha256: S3RequestBuilder.emptySHA256, attributes: attributes, createOnly: false)
        case "HeadObject": return builder.headObject(key: item.key!)
        case "CreateMultipartUpload": return builder.createMultipartUpload(key: item.key!, attributes: attributes)
        case "UploadPart": return builder.uploadPart(key: item.key!, uploadID: item.uploadId!, partNumber: item.partNumber!, body: .none, sha256: S3RequestBuilder.emptySHA256)
        case "ListParts": return builder.listParts(key: item.key!, uploadID: item.uploadId!, partNumberMarker: item.partNumberMarker)
        case "AbortMultipartUpload": return builder.abortMultipartUpload(key: item.key!, uploadID: item.uploadId!)
        case "ListObjectsV2": return builder.listObjectsV2(prefix: item.prefix!, continuationToken: item.continuationToken, maxKeys: item.maxKeys)
        case "ListMultipartUploads": return builder.listMultipartUploads(prefix: item.prefix!, keyMarker: item.keyMarker, uploadIDMarker: item.uploadIdMarker)
        default: return nil
        }
    }
}
