import ContentDigest
import Foundation
import ObjectStorage
import ObjectStorageCurl
import Testing
import TestRandomness

/// The S3 client against a real Ceph RGW, which checks signatures, payload hashes and
/// Content-Length the way AWS does (reference/object-storage.md §3).
@Suite(.enabled(if: RGWCluster.shouldRun, RGWCluster.skipMessage), .serialized)
struct RGWClientTests {
    static let immutable = "public, max-age=31536000, immutable"

    /// A scratch file of `size` pseudo-random bytes and its SHA-256.
    static func scratchFile(size: Int, seed: UInt8 = 1, ext: String = "bin") throws -> (path: String, bytes: [UInt8], sha256: String) {
        var generator = SeededGenerator(state: UInt64(seed))
        // Eight bytes per step: a byte-at-a-time loop takes seconds for 12 MiB in a debug build.
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { buffer in
            for offset in stride(from: 0, to: size, by: 8) {
                withUnsafeBytes(of: generator.next()) { word in
                    buffer[offset..<min(offset + 8, size)].copyBytes(from: word.prefix(size - offset))
                }
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString).\(ext)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes, SHA256Hex.of(bytes))
    }

    static func uniqueKey(_ name: String) -> String { "t/\(UUID().uuidString)/\(name)" }

    @Test func putHeadGetListDelete_roundTrip() throws {
        let client = try RGWCluster.require().client()
        let file = try Self.scratchFile(size: 70_001)
        defer { unlink(file.path) }
        // Characters RGW signs differently from a naive encoder ('=', '+', space, UTF-8).
        let key = Self.uniqueKey("a=b+c d/ü.bin")
        let attributes = ObjectAttributes(contentType: "application/x-tflite", cacheControl: Self.immutable, sha256: file.sha256)
        #expect(try client.head(key) == nil)
        let outcome = try client.put(key, body: .file(path: file.path, offset: 0, length: Int64(file.bytes.count)), sha256: file.sha256, attributes: attributes)
        guard case .created = outcome else { Issue.record("expected created, got \(outcome)"); return }
        let head = try #require(try client.head(key))
        #expect(head.size == 70_001 && head.sha256 == file.sha256)
        #expect(head.contentType == "application/x-tflite" && head.cacheControl == Self.immutable)
        #expect(try client.get(key) == file.bytes)
        let prefix = String(key.prefix { $0 != "/" }) + "/" + key.split(separator: "/")[1] + "/"
        #expect(try client.list(prefix: prefix).map(\.key) == [key])
        try client.delete(key)
        #expect(try client.head(key) == nil)
        #expect(try client.list(prefix: prefix).isEmpty)
        try client.delete(key)  // deleting twice is not an error
    }

    @Test func smallBodyFromMemory_andListPaging() throws {
        let client = try RGWCluster.require().client()
        let prefix = Self.uniqueKey("")
        let keys = (0..<5).map { prefix + "k\($0)=+/x.json" }
        for key in keys {
            let body = Array("{\"key\":\"\(key)\"}".utf8)
            _ = try client.put(key, body: .bytes(body), sha256: SHA256Hex.of(body),
                               attributes: ObjectAttributes(contentType: "application/json", cacheControl: "public, max-age=60"))
        }
        // Pages of two follow RGW's continuation tokens (they hold characters that need escaping).
        #expect(try client.list(prefix: prefix, pageSize: 2).map(\.key) == keys.sorted())
        for key in keys { try client.delete(key) }
    }

    /// Virtual-host style: the bucket in the host name (`mirror-test.localhost`, which libcurl
    /// resolves to loopback; scripts/rgw.sh sets `rgw dns name = localhost`).
    @Test func virtualHostAddressing_roundTrip() throws {
        let cluster = try RGWCluster.require()
        let port = cluster.endpoint.split(separator: ":").last!
        let endpoint = try S3Endpoint(url: "http://localhost:\(port)", bucket: RGWCluster.bucket, addressing: .virtual)
        #expect(endpoint.url(key: "k").hasPrefix("http://\(RGWCluster.bucket).localhost:"))
        let client = S3Client(endpoint: endpoint, credentials: cluster.credentials)
        let key = Self.uniqueKey("virtual=+.bin")
        let body = Array("virtual".utf8)
        _ = try client.put(key, body: .bytes(body), sha256: SHA256Hex.of(body), attributes: ObjectAttributes(contentType: "text/plain"))
        #expect(try client.get(key) == body)
        #expect(try client.list(prefix: key).map(\.key) == [key])
        try client.delete(key)
        #expect(try client.head(key) == nil)
    }

    @Test func createOnly_secondPutIs412AndLeavesTheObject() throws {
        let client = try RGWCluster.require().client()
        let key = Self.uniqueKey("once.bin")
        let first = Array("first".utf8), second = Array("second".utf8)
        let attributes = ObjectAttributes(contentType: "application/octet-stream")
        #expect(try client.put(key, body: .bytes(first), sha256: SHA256Hex.of(first), attributes: attributes, createOnly: true) != .alreadyExists)
        #expect(try client.put(key, body: .bytes(second), sha256: SHA256Hex.of(second), attributes: attributes, createOnly: true) == .alreadyExists)
        #expect(try client.get(key) == first)
        try client.delete(key)
    }

    @Test func wrongPayloadHash_isRejectedByRGW() throws {
        let client = try RGWCluster.require().client()
        let key = Self.uniqueKey("bad-hash.bin")
        let body = Array("payload".utf8)
        #expect {
            _ = try client.put(key, body: .bytes(body), sha256: SHA256Hex.of(Array("other".utf8)),
                               attributes: ObjectAttributes(contentType: "application/octet-stream"))
        } throws: { error in
            (error as? S3Error)?.serviceCode == "XAmzContentSHA256Mismatch"
        }
        #expect(try client.head(key) == nil)
    }

    @Test func wrongSecret_isSignatureDoesNotMatch_notRetried() throws {
        let cluster = try RGWCluster.require()
        let counter = Counter()
        var client = try cluster.client(secret: "wrong-secret", retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)))
        client.onRetry = { _, _, _ in counter.increment() }
        let key = Self.uniqueKey("denied.bin")
        let body = Array("x".utf8)
        do {
            _ = try client.put(key, body: .bytes(body), sha256: SHA256Hex.of(body), attributes: ObjectAttributes(contentType: "text/plain"))
            Issue.record("a wrong secret was accepted")
        } catch {
            #expect(error.serviceCode == "SignatureDoesNotMatch")
            #expect(error.status == 403)
            #expect(error.description.contains("check the secret access key"))
            #expect(!error.description.contains("wrong-secret"))
        }
        #expect(counter.value == 0)
        #expect(try cluster.client().head(key) == nil)
    }

    @Test func multipart_createPartsListCompleteAndAbort() throws {
        let client = try RGWCluster.require().client()
        let file = try Self.scratchFile(size: (11 << 20) + 123, seed: 7)
        defer { unlink(file.path) }
        let key = Self.uniqueKey("big.bin")
        let plan = try PartPlan(objectSize: Int64(file.bytes.count), partSize: 5 << 20)
        let attributes = ObjectAttributes(contentType: "application/octet-stream", cacheControl: Self.immutable, sha256: file.sha256)
        let uploadID = try client.createMultipartUpload(key, attributes: attributes)

        func upload(_ number: Int) throws -> CompletedPart {
            let range = plan.range(ofPart: number)
            let sha = SHA256Hex.of(Array(file.bytes[Int(range.offset)..<Int(range.offset + range.length)]))
            return try client.uploadPart(key, uploadID: uploadID, number: number,
                                         body: .file(path: file.path, offset: range.offset, length: range.length), sha256: sha)
        }
        var parts = [try upload(1), try upload(2)]
        // What a resumed mirror sees: the upload is listed, with the parts done so far.
        #expect(try client.listMultipartUploads(prefix: key).contains { $0.key == key && $0.uploadID == uploadID })
        let listed = try client.listParts(key, uploadID: uploadID)
        #expect(listed.map(\.partNumber) == [1, 2])
        #expect(listed.map(\.etag) == parts.map(\.etag))
        #expect(listed.allSatisfy { $0.size == 5 << 20 })
        #expect(try client.head(key) == nil)  // nothing visible before Complete
        parts.append(try upload(3))
        #expect(plan.partCount == 3)
        guard case .created = try client.completeMultipartUpload(key, uploadID: uploadID, parts: parts, createOnly: true) else {
            Issue.record("Complete did not create the object"); return
        }
        let head = try #require(try client.head(key))
        #expect(head.size == Int64(file.bytes.count) && head.sha256 == file.sha256 && head.cacheControl == Self.immutable)
        #expect(try client.get(key) == file.bytes)
        #expect(try !client.listMultipartUploads(prefix: key).contains { $0.uploadID == uploadID })

        // Abort: the upload disappears and nothing becomes visible.
        let abandoned = Self.uniqueKey("abandoned.bin")
        let second = try client.createMultipartUpload(abandoned, attributes: attributes)
        _ = try client.uploadPart(abandoned, uploadID: second, number: 1, body: .file(path: file.path, offset: 0, length: 5 << 20),
                                  sha256: SHA256Hex.of(Array(file.bytes[0..<(5 << 20)])))
        try client.abortMultipartUpload(abandoned, uploadID: second)
        #expect(try client.listMultipartUploads(prefix: abandoned).isEmpty)
        #expect(try client.head(abandoned) == nil)
        try client.delete(key)
    }

    @Test func complete_withAWrongETag_isAClearError() throws {
        let client = try RGWCluster.require().client()
        let key = Self.uniqueKey("bad-complete.bin")
        let uploadID = try client.createMultipartUpload(key, attributes: ObjectAttributes(contentType: "application/octet-stream"))
        defer { try? client.abortMultipartUpload(key, uploadID: uploadID) }
        let body = Array(repeating: UInt8(1), count: 10)
        _ = try client.uploadPart(key, uploadID: uploadID, number: 1, body: .bytes(body), sha256: SHA256Hex.of(body))
        #expect {
            _ = try client.completeMultipartUpload(key, uploadID: uploadID, parts: [CompletedPart(partNumber: 1, etag: "\"00\"")])
        } throws: { error in
            (error as? S3Error)?.serviceCode == "InvalidPart"
        }
        #expect(try client.head(key) == nil)
    }
}

/// A counter a @Sendable retry callback can bump.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

