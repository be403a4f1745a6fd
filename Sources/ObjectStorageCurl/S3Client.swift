import CCurl
import CurlTransport
import Glibc
import ObjectStorage

/// Sends S3Requests through libcurl, SigV4-signed by `CURLOPT_AWS_SIGV4`, retrying transient
/// failures with backoff. Not shared across threads: each call makes its own easy handle.
public struct S3Client: Sendable {
    public let builder: S3RequestBuilder
    public let credentials: Credentials
    public var retry = RetryPolicy()
    public var connectTimeoutSeconds = 10
    /// Responses are XML documents or empty; a larger one is a fault, not data.
    public var responseLimit = 16 << 20
    /// Called before each retry with the failure and the wait (for logs); not for the last one.
    public var onRetry: (@Sendable (S3Request, S3Error, Duration) -> Void)?

    public init(endpoint: S3Endpoint, credentials: Credentials) {
        builder = S3RequestBuilder(endpoint: endpoint)
        self.credentials = credentials
    }

    /// Performs `request`, retrying transient failures; returns any non-error response
    /// (2xx, 304, 404 and 412 are answers the callers interpret) and throws the rest.
    /// `progress` hears the body bytes sent (upload requests).
    public func perform(_ request: S3Request, accepting accepted: Set<Int> = [], progress: (any CurlProgressObserver)? = nil) throws(S3Error) -> S3Response {
        try withRetries(request) { () throws(S3Error) in try performOnce(request, accepting: accepted, progress: progress) }
    }

    /// Runs `attempt` until it succeeds, fails for good, or `retry.maxAttempts` are spent.
    func withRetries<T>(_ request: S3Request, _ attempt: () throws(S3Error) -> T) throws(S3Error) -> T {
        var count = 1
        while true {
            do {
                return try attempt()
            } catch {
                guard RetryPolicy.isRetryable(error), count < retry.maxAttempts else { throw error }
                let wait = retry.delay(afterAttempt: count, random: Double.random(in: 0..<1))
                onRetry?(request, error, wait)
                Self.sleep(wait)
                count += 1
            }
        }
    }

    func performOnce(_ request: S3Request, accepting accepted: Set<Int>, progress: (any CurlProgressObserver)? = nil) throws(S3Error) -> S3Response {
        signal(SIGPIPE, SIG_IGN)  // a store closing mid-upload must be an error, not a dead process
        var upload: (any CurlUploadSource)?
        if case .file(let path, let offset, let length) = request.body {
            upload = try FileRangeSource(path: path, offset: offset, length: length)
        }
        let transfer: CurlTransfer
        do { transfer = try CurlTransfer(responseLimit: responseLimit, upload: upload, progress: progress, collectsHeaders: true) } catch {
            throw S3Error.transport(error.description)
        }
        configure(transfer.easy, for: request)
        let code = transfer.perform()
        let label = "\(request.operation) \(request.method) \(request.url)"
        if let failure = transfer.uploadError { throw failure as? S3Error ?? S3Error.local("\(failure)") }
        if transfer.responseOverflowed { throw S3Error.invalidResponse("\(label): response larger than \(responseLimit) bytes") }
        let status = transfer.easy.responseCode
        guard code == CURLE_OK else {
            // A store may answer early (403 on a bad signature) and close while the body is still going out.
            if status >= 400, let error = S3ResponseParser.error(transfer.responseBody, status: status, request: label) { throw S3Error.service(error) }
            throw S3Error.transport("\(label): \(transfer.easy.errorMessage(code))")
        }
        let response = S3Response(status: status, headers: transfer.responseHeaders, body: transfer.responseBody)
        if (200..<300).contains(status) || accepted.contains(status) { return response }
        throw S3Error.service(S3ResponseParser.error(response.body, status: status, request: label)
            ?? S3ServiceError(status: status, code: Self.codeWithoutBody(status), message: "", requestID: response.header("x-amz-request-id"), request: label))
    }

    private func configure(_ easy: CurlEasy, for request: S3Request) {
        easy.set(CURLOPT_URL, request.url)
        easy.set(CURLOPT_AWS_SIGV4, builder.endpoint.sigV4Provider)
        easy.set(CURLOPT_USERNAME, credentials.accessKeyID)
        easy.set(CURLOPT_PASSWORD, credentials.secretAccessKey)
        easy.set(CURLOPT_CONNECTTIMEOUT, connectTimeoutSeconds)
        // A stalled transfer is cut by a low-speed limit rather than a whole-request timeout, so
        // a 5 GiB part on a slow link is not.
        easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        easy.set(CURLOPT_LOW_SPEED_TIME, 60)
        var headers = request.headers.map { "\($0.name): \($0.value)" }
        // The token is signed like any other header (libcurl signs the whole list).
        if let token = credentials.sessionToken { headers.append("x-amz-security-token: \(token)") }
        switch request.body {
        case .none:
            switch request.method {
            case "GET": break
            case "HEAD": easy.set(CURLOPT_NOBODY, 1)
            case "POST":
                // A POST without a body (CreateMultipartUpload) still sends Content-Length: 0.
                easy.set(CURLOPT_POST, 1)
                easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
                easy.set(CURLOPT_COPYPOSTFIELDS, "")
            default: easy.set(CURLOPT_CUSTOMREQUEST, request.method)
            }
        case .bytes(let bytes):
            easy.set(CURLOPT_POST, 1)
            if request.method != "POST" { easy.set(CURLOPT_CUSTOMREQUEST, request.method) }
            easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(bytes.count))
            bytes.withUnsafeBytes { easy.set(CURLOPT_COPYPOSTFIELDS, pointer: $0.baseAddress) }
        case .file(_, _, let length):
            // A known length: S3 wants Content-Length (RGW answers 411 to chunked uploads).
            easy.set(CURLOPT_UPLOAD, 1)
            easy.set(CURLOPT_INFILESIZE_LARGE, offset: length)
            easy.set(CURLOPT_UPLOAD_BUFFERSIZE, 1 << 20)
            if request.method != "PUT" { easy.set(CURLOPT_CUSTOMREQUEST, request.method) }
        }
        easy.setHeaders(headers)
    }

    /// HEAD answers carry no body, so their errors have no XML code; name them by status.
    private static func codeWithoutBody(_ status: Int) -> String {
        switch status {
        case 403: "Forbidden"
        case 404: "NotFound"
        case 412: "PreconditionFailed"
        default: "HTTP\(status)"
        }
    }

    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        while true {
            let wanted = remaining
            guard nanosleep([wanted], &remaining) != 0, errno == EINTR else { return }
        }
    }
}
