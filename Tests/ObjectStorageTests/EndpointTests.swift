import Testing
@testable import ObjectStorage

struct EndpointTests {
    @Test("default addressing: path for IPs and localhost, virtual otherwise (SPEC §9.1)", arguments: [
        ("127.0.0.1", S3Endpoint.Addressing.path), ("localhost", .path), ("LOCALHOST", .path), ("[::1]", .path),
        ("10.0.0.12", .path), ("s3.us-east-1.amazonaws.com", .virtual), ("acct.r2.cloudflarestorage.com", .virtual),
        ("storage.googleapis.com", .virtual), ("minio", .virtual), ("1.2.3", .virtual), ("1.2.3.4.nip.io", .virtual),
    ])
    func defaultAddressing(_ host: String, _ expected: S3Endpoint.Addressing) {
        #expect(S3Endpoint.Addressing.default(forHost: host) == expected)
    }

    @Test func parsesHostAndPort() throws {
        let endpoint = try S3Endpoint(url: "http://127.0.0.1:7480/", bucket: "b-1")
        #expect(endpoint.host == "127.0.0.1" && endpoint.port == 7480 && endpoint.addressing == .path)
        #expect(endpoint.url(key: nil) == "http://127.0.0.1:7480/b-1")
        let v6 = try S3Endpoint(url: "http://[::1]:9000", bucket: "bkt")
        #expect(v6.url(key: "k") == "http://[::1]:9000/bkt/k")
        let explicit = try S3Endpoint(url: "https://s3.example.com", bucket: "bkt", addressing: .path)
        #expect(explicit.url(key: "a/b") == "https://s3.example.com/bkt/a/b")
    }

    @Test("bad endpoints, buckets and regions are usage errors", arguments: [
        ("ftp://h", "b-1", "us-east-1", "scheme"), ("h:9000", "bkt", "us-east-1", "expected http"),
        ("http://h/base", "bkt", "us-east-1", "only scheme"), ("http://u@h", "bkt", "us-east-1", "only scheme"),
        ("http://h:0", "bkt", "us-east-1", "bad port"), ("http://h:x", "bkt", "us-east-1", "bad port"),
        ("http://h", "Bk", "us-east-1", "bucket"), ("http://h", "a_b", "us-east-1", "bucket"),
        ("http://h", "bkt", "us east", "region"), ("https://h.example", "a.b.c", "us-east-1", "--addressing path"),
    ])
    func rejects(_ url: String, _ bucket: String, _ region: String, _ reason: String) {
        #expect {
            try S3Endpoint(url: url, bucket: bucket, region: region)
        } throws: { error in
            guard case .usage(let message) = error as? S3Error else { return false }
            return message.contains(reason)
        }
    }
}

struct PartPlanTests {
    static let mib: Int64 = 1 << 20
    static let partSizes: [(Int64, Int64)] = [
        (1, 8 * mib), (100 * mib, 8 * mib), (80_000 * mib, 8 * mib), (80_000 * mib + 1, 9 * mib),
        (1 << 40, 105 * mib), (5 << 40, 525 * mib),
    ]

    @Test("default part size: max(8 MiB, size/10,000 rounded up to 1 MiB) (SPEC §9.1)", arguments: partSizes)
    func defaultPartSize(_ size: Int64, _ part: Int64) throws {
        #expect(PartPlan.defaultPartSize(for: size) == part)
        let plan = try PartPlan(objectSize: size)
        #expect(plan.partCount <= 10_000)
    }

    @Test func ranges_coverTheFileWithEqualPartsButTheLast() throws {
        let plan = try PartPlan(objectSize: (11 << 20) + 5, partSize: 5 << 20)
        #expect(plan.partCount == 3)
        #expect(plan.range(ofPart: 1) == (0, 5 << 20))
        #expect(plan.range(ofPart: 3) == (10 << 20, (1 << 20) + 5))
    }

    @Test func rejectsPartSizesStoresRefuse() {
        #expect(throws: S3Error.self) { try PartPlan(objectSize: 100 << 20, partSize: 4 << 20) }
        #expect(throws: S3Error.self) { try PartPlan(objectSize: 1 << 40, partSize: 8 << 20) }
        #expect(throws: S3Error.self) { try PartPlan(objectSize: 0) }
    }

    @Test func multipartAboveThresholdAndAlwaysAbove5GiB() {
        #expect(PartPlan.usesMultipart(size: 101 << 20, threshold: 100 << 20))
        #expect(!PartPlan.usesMultipart(size: 100 << 20, threshold: 100 << 20))
        #expect(PartPlan.usesMultipart(size: (5 << 30) + 1, threshold: 1 << 40))
    }
}

struct RetryPolicyTests {
    static func failure(_ status: Int, _ code: String) -> S3Error {
        .service(S3ServiceError(status: status, code: code, message: "", requestID: nil, request: "r"))
    }

    @Test func classifiesTransientFailures() {
        #expect(RetryPolicy.isRetryable(.transport("reset")))
        #expect(RetryPolicy.isRetryable(Self.failure(503, "SlowDown")))
        #expect(RetryPolicy.isRetryable(Self.failure(500, "InternalError")))
        #expect(RetryPolicy.isRetryable(Self.failure(429, "TooManyRequests")))
        #expect(RetryPolicy.isRetryable(Self.failure(200, "InternalError")))
        #expect(!RetryPolicy.isRetryable(Self.failure(403, "SignatureDoesNotMatch")))
        #expect(!RetryPolicy.isRetryable(Self.failure(200, "InvalidPart")))
        #expect(!RetryPolicy.isRetryable(.usage("x")) && !RetryPolicy.isRetryable(.local("x")))
    }

    @Test func backoffIsExponentialJitteredAndCapped() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(policy.delay(afterAttempt: 1, random: 0.999_999) < .milliseconds(100))
        #expect(policy.delay(afterAttempt: 3, random: 0.5) == .milliseconds(200))
        #expect(policy.delay(afterAttempt: 9, random: 0.5) == .milliseconds(500))
        #expect(policy.delay(afterAttempt: 60, random: 0.5) == .milliseconds(500))
        #expect(policy.delay(afterAttempt: 2, random: 0) == .zero)
    }
}

struct CredentialsTests {
    @Test func environment() {
        #expect(Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": "T"])
                == Credentials(accessKeyID: "AK", secretAccessKey: "SK", sessionToken: "T"))
        #expect(Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "AK"]) == nil)
        #expect(Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": ""]) == nil)
    }

    @Test func iniProfiles_asTheAWSCLIWritesThem() throws {
        let text = """
            # written by aws configure
            [default]
            aws_access_key_id = AKDEFAULT
            aws_secret_access_key=SKDEFAULT\r
            ; comment
            [ r2 ]
            AWS_ACCESS_KEY_ID = AKR2
            aws_secret_access_key = SK=with=equals
            aws_session_token = tok
            """
        #expect(try Credentials.fromINI(text, profile: "default", source: "f") == Credentials(accessKeyID: "AKDEFAULT", secretAccessKey: "SKDEFAULT"))
        #expect(try Credentials.fromINI(text, profile: "r2", source: "f") == Credentials(accessKeyID: "AKR2", secretAccessKey: "SK=with=equals", sessionToken: "tok"))
        #expect(throws: S3Error.usage("f: no profile [other]")) { try Credentials.fromINI(text, profile: "other", source: "f") }
        #expect(throws: S3Error.usage("f:1: expected key = value")) { try Credentials.fromINI("junk", profile: "default", source: "f") }
        #expect(throws: S3Error.self) { try Credentials.fromINI("[default]\naws_access_key_id = A\n", profile: "default", source: "f") }
    }

    @Test func descriptionHidesTheSecret() {
        let text = "\(Credentials(accessKeyID: "AK", secretAccessKey: "very-secret"))"
        #expect(!text.contains("very-secret") && text.contains("AK"))
    }
}
