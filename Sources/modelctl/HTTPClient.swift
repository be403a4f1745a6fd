import CCurl
import Foundation

/// Talks HTTP/1.1 to modeld through libcurl and turns transport failures into CLIFailures.
/// Responses are read whole into memory (they are JSON documents), up to `responseLimit`.
struct HTTPClient {
    /// Server base URL without a trailing slash.
    let baseURL: String
    let token: String?
    var connectTimeoutSeconds = 10
    /// Whole-request limit for requests without a streamed body; a streamed upload may take hours.
    var requestTimeoutSeconds = 60
    var responseLimit = 64 << 20

    init(baseURL: String, token: String?) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
    }

    func send(_ request: HTTPClientRequest) throws(CLIFailure) -> HTTPClientResponse {
        // A server that closes mid-upload must surface as an error, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        var upload: (any UploadSource)?
        if case .stream(let source, _) = request.body { upload = source }
        let transfer = try CurlTransfer(responseLimit: responseLimit, upload: upload, progress: request.progress)
        configure(transfer.easy, for: request)
        let code = transfer.perform()
        return try outcome(of: transfer, code, request)
    }

    private func configure(_ easy: CurlEasy, for request: HTTPClientRequest) {
        easy.set(CURLOPT_URL, baseURL + request.pathAndQuery)
        easy.set(CURLOPT_CONNECTTIMEOUT, connectTimeoutSeconds)
        // Stalls are caught by a low-speed limit; generous, since after the last byte of a big
        // upload the server still fsyncs and renames before it answers.
        easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        easy.set(CURLOPT_LOW_SPEED_TIME, 120)
        var headers = ["Accept: application/json"]
        if let token { headers.append("Authorization: Bearer \(token)") }
        switch request.body {
        case .empty:
            easy.set(CURLOPT_TIMEOUT, requestTimeoutSeconds)
            if request.method != "GET" { easy.set(CURLOPT_CUSTOMREQUEST, request.method) }
        case .json(let bytes):
            easy.set(CURLOPT_TIMEOUT, requestTimeoutSeconds)
            easy.set(CURLOPT_CUSTOMREQUEST, request.method)
            easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(bytes.count))
            bytes.withUnsafeBytes { easy.set(CURLOPT_COPYPOSTFIELDS, pointer: $0.baseAddress) }
            headers.append("Content-Type: application/json")
        case .stream(let source, let contentType):
            // No size given: libcurl sends chunks, which is also what lets trailers follow.
            easy.set(CURLOPT_POST, 1)
            easy.set(CURLOPT_UPLOAD_BUFFERSIZE, 1 << 20)
            if request.method != "POST" { easy.set(CURLOPT_CUSTOMREQUEST, request.method) }
            headers += ["Content-Type: \(contentType)", "Transfer-Encoding: chunked", "Expect: 100-continue"]
            if !source.trailerNames.isEmpty { headers.append("Trailer: " + source.trailerNames.joined(separator: ", ")) }
        }
        easy.setHeaders(headers)
    }

    private func outcome(of transfer: CurlTransfer, _ code: CURLcode, _ request: HTTPClientRequest) throws(CLIFailure) -> HTTPClientResponse {
        let url = baseURL + request.pathAndQuery
        if let failure = transfer.uploadError { throw failure }
        if transfer.responseOverflowed { throw CLIFailure("response from \(url) is larger than \(responseLimit) bytes") }
        var response = HTTPClientResponse(status: transfer.easy.responseCode, body: transfer.responseBody)
        for name in request.responseHeaders { response.headers[name] = transfer.easy.responseHeader(name) }
        guard code != CURLE_OK else { return response }
        // A server may answer early (401, 413) and close while the body is still going out:
        // its answer says more than the broken pipe.
        if response.status >= 400, !response.body.isEmpty { return response }
        let reason = transfer.easy.errorMessage(code)
        throw CLIFailure(Self.isUnreachable(code) ? "cannot reach \(baseURL): \(reason)" : "\(request.method) \(url) failed: \(reason)")
    }

    /// Failures before any HTTP exchange: the server is down, unknown or out of reach.
    private static func isUnreachable(_ code: CURLcode) -> Bool {
        [CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
         CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT].contains(code)
    }
}
