/// A release (SPEC §3, plus `url`) or a /latest document (§4.1, a subset), as the server sends
/// it. Only `id` is required so that either shape decodes.
struct ReleaseDocument: Decodable {
    let id: String
    let seq: Int64?
    let url: String?
    let file: String?
    let ext: String?
    let sha256: String?
    let size: Int64?
    let sdkMin: String?
    let sdkMax: String?
    let channel: String?
    let rolloutPercent: Int?
    let state: String?
    let label: String?
    let contentType: String?
    let publishedAt: String?
    let retiredAt: String?
    let fileDeletedAt: String?
    /// The catalog version the answer describes (SPEC §12); absent from /latest documents.
    let catalogVersion: Int64?

    /// JSON names and values in a fixed reading order; absent and empty fields are left out.
    var fields: [(String, String)] {
        let all: [(String, String?)] = [
            ("id", id), ("seq", seq.map(String.init)), ("url", url), ("file", file), ("ext", ext),
            ("sha256", sha256), ("size", size.map { "\($0) (\($0.byteCountText))" }),
            ("sdk_min", sdkMin), ("sdk_max", sdkMax), ("channel", channel),
            ("rollout_percent", rolloutPercent.map(String.init)), ("state", state), ("label", label),
            ("content_type", contentType), ("published_at", publishedAt), ("retired_at", retiredAt),
            ("file_deleted_at", fileDeletedAt), ("catalog_version", catalogVersion.map(String.init)),
        ]
        return all.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : (name, $0) } }
    }

    /// `2.3..<3.0`, or `2.3+` when open-ended.
    var sdkRange: String {
        guard let sdkMin else { return "" }
        return sdkMax.map { "\(sdkMin)..<\($0)" } ?? "\(sdkMin)+"
    }
}
