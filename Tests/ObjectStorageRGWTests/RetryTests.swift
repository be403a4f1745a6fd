import Foundation
import ObjectStorage
import ObjectStorageCurl
import Testing

/// Retries with backoff against a scripted loopback server: transient failures (5xx, 429,
/// dropped connections, a 200 carrying an <Error>) are retried, others are not.
@Suite(.serialized)
struct RetryTests {
    static let credentials = Credentials(accessKeyID: "AKTEST", secretAccessKey: "secret")
    static let headOK = FaultServer.Reply.respond(status: 200, headers: ["x-amz-meta-sha256: abc", "Content-Type: text/plain"], body: "hello")

    static func client(_ server: FaultServer, attempts: Int = 4, counter: Counter? = nil) throws -> S3Client {
        var client = S3Client(endpoint: try S3Endpoint(url: "http://127.0.0.1:\(server.port)", bucket: "bkt"), credentials: credentials)
        client.retry = RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))
        if let counter { client.onRetry = { _, _, _ in counter.increment() } }
        return client
    }

    @Test func transientFailures_areRetriedUntilSuccess() throws {
        let server = try FaultServer([.respond(status: 503, body: "<Error><Code>SlowDown</Code></Error>"), .hangUp,
                                      .respond(status: 429), .respond(status: 500), Self.headOK])
        defer { server.stop() }
        let counter = Counter()
        let head = try Self.client(server, attempts: 5, counter: counter).head("k")
        #expect(head?.size == 5 && head?.sha256 == "abc")
        #expect(server.requests.count == 5)
        #expect(counter.value == 4)
    }

    @Test func persistent5xx_failsAfterMaxAttempts() throws {
        let server = try FaultServer(Array(repeating: .respond(status: 502), count: 5))
        defer { server.stop() }
        #expect {
            _ = try Self.client(server, attempts: 3).get("k")
        } throws: { error in
            (error as? S3Error)?.status == 502
        }
        #expect(server.requests.count == 3)
    }

    @Test func clientErrors_areNotRetried() throws {
        let server = try FaultServer([.respond(status: 403, body: "<Error><Code>AccessDenied</Code><Message>no</Message></Error>"), Self.headOK])
        defer { server.stop() }
        #expect {
            _ = try Self.client(server).get("k")
        } throws: { error in
            (error as? S3Error)?.serviceCode == "AccessDenied" && "\(error)".contains("check the key's permissions")
        }
        #expect(server.requests.count == 1)
    }

    @Test func connectionRefused_isATransportErrorAfterRetries() throws {
        let server = try FaultServer([])
        server.stop()
        #expect {
            _ = try Self.client(server, attempts: 2).head("k")
        } throws: { error in
            if case .transport = error as? S3Error { return true }
            return false
        }
    }

    @Test func complete200WithError_isRetriedThenSucceeds() throws {
        let failing = "<?xml version=\"1.0\"?>\n\n<Error><Code>InternalError</Code><Message>try again</Message></Error>"
        let done = "<CompleteMultipartUploadResult><Key>k</Key><ETag>\"e-2\"</ETag></CompleteMultipartUploadResult>"
        let server = try FaultServer([.respond(status: 200, body: failing), .respond(status: 200, body: done)])
        defer { server.stop() }
        let outcome = try Self.client(server).completeMultipartUpload("k", uploadID: "u+1", parts: [CompletedPart(partNumber: 1, etag: "\"a\"")])
        #expect(outcome == .created(etag: "\"e-2\""))
        #expect(server.requests.count == 2)
        #expect(server.requests[0].hasPrefix("POST /bkt/k?uploadId=u%2B1 HTTP/1.1"))
    }

    @Test func complete200WithPermanentError_throwsWithoutRetry() throws {
        let server = try FaultServer([.respond(status: 200, body: "<Error><Code>InvalidPart</Code><Message>bad etag</Message></Error>")])
        defer { server.stop() }
        #expect {
            _ = try Self.client(server).completeMultipartUpload("k", uploadID: "u", parts: [CompletedPart(partNumber: 1, etag: "\"a\"")])
        } throws: { error in
            (error as? S3Error)?.serviceCode == "InvalidPart" && (error as? S3Error)?.status == 200
        }
        #expect(server.requests.count == 1)
    }

    /// What goes on the wire: SigV4 by libcurl with the payload hash and our headers signed,
    /// the canonical query as built (`?uploads=`), and the session token when there is one.
    @Test func requestsAreSignedWithThePayloadHash() throws {
        let server = try FaultServer([.respond(status: 200, body: "<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>")])
        defer { server.stop() }
        var client = try Self.client(server)
        client = S3Client(endpoint: client.builder.endpoint, credentials: Credentials(accessKeyID: "AKTEST", secretAccessKey: "s", sessionToken: "TOKEN"))
        let id = try client.createMultipartUpload("m/a.bin", attributes: ObjectAttributes(contentType: "application/octet-stream", sha256: "ab"))
        #expect(id == "u1")
        let head = try #require(server.requests.first).lowercased()
        #expect(head.hasPrefix("post /bkt/m/a.bin?uploads= http/1.1"))
        #expect(head.contains("x-amz-content-sha256: \(S3RequestBuilder.emptySHA256)"))
        #expect(head.contains("x-amz-security-token: token"))
        #expect(head.contains("content-length: 0"))
        #expect(head.contains("authorization: aws4-hmac-sha256 credential=aktest/"))
        #expect(head.contains("/us-east-1/s3/aws4_request"))
        #expect(head.contains("signedheaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-meta-sha256;x-amz-security-token"))
    }
}
