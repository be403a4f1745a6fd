extension AdminAPI: Publisher {
    /// Streams the file once, chunked, hashing as it goes; the digest follows as a trailer so the
    /// server can refuse a corrupted upload (422 sha256_mismatch) without the file being read twice.
    func publish(_ request: PublishRequest) throws(CLIFailure) -> [UInt8] {
        let source = try PublishFileSource(path: request.file)
        let query: [(String, String?)] = [
            ("sdk_min", request.sdkMin), ("sdk_max", request.sdkMax), ("channel", request.channel),
            ("rollout", request.rolloutPercent.map(String.init)), ("label", request.label), ("ext", request.ext),
            ("id", request.id), ("content_type", request.contentType),
            ("guard", request.guardJSON),
        ]
        let upload = HTTPClientRequest(
            method: "POST", path: "/admin/models", query: query,
            body: .stream(source, contentType: "application/octet-stream"),
            progress: ProgressBar.forTerminal(total: source.size))
        return try client.send(upload).expect(201).body
    }
}
