import Foundation
extension AdminAPI: Publisher {
    /// Streams the file once, chunked, hashing as it goes; the digest follows as a trailer so the
    /// server can refuse a corrupted upload (422 sha256_mismatch) without the file being read twice.
    func publish(_ request: PublishArguments) throws(CLIFailure) -> [UInt8] {
        let source = try PublishFileSource(path: request.file)
        let query: [(String, String?)] = [
            ("sdk_min", request.sdkMin), ("sdk_max", request.sdkMax), ("channel", request.channel),
            ("rollout", request.rolloutPercent.map(String.init)), ("label", request.label), ("ext", request.ext),
            ("id", request.id), ("content_type", request.contentType),
            ("guard", request.guardJSON),
            ("base_channel", request.base?.channel), ("base_sha256", request.base?.sha256),
            ("display_name", request.displayName), ("license_spdx", request.licenseSPDX), ("license_url", request.licenseURL),
            ("license_sha256", request.licenseSHA256), ("min_ram_mb", request.minRAMMB.map(String.init)),
        ]
        let upload = HTTPClientRequest(
            method: "POST", path: "/admin/models", query: query,
            body: .stream(source, contentType: "application/octet-stream"),
            progress: ProgressBar.forTerminal(total: source.size))
        return try client.send(upload).expect(201).body
    }

    func channelAndSHA256(ofRelease id: String) throws(CLIFailure) -> (channel: String, sha256: String) {
        struct Fields: Decodable { let channel: String; let sha256: String }
        let body = try release(id)
        guard let f = try? JSONDecoder().decode(Fields.self, from: Data(body)) else {
            throw CLIFailure("release \(id): the server's answer has no channel and sha256")
        }
        return (f.channel, f.sha256)
    }
}
