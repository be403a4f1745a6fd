import BinaryText
import Foundation

/// One release as the update check answers it (SPEC §4.1).
public struct Release: Codable, Sendable, Equatable {
    public var url: String
    public var id: String
    public var sha256: String
    public var size: Int64
    public var sdkMin: String
    public var sdkMax: String?
    public var channel: String
    public var label: String?
    public var publishedAt: String?
    /// The device-class variant answered instead of the default file (SPEC §3.1).
    public var variant: String?
    /// The file's chunk list (SPEC §14), when the server published one: what delta updates use.
    public var chunks: ChunkListReference?

    enum CodingKeys: String, CodingKey {
        case url, id, sha256, size, channel, label, variant, chunks
        case sdkMin = "sdk_min", sdkMax = "sdk_max", publishedAt = "published_at"
    }

    /// The file extension of the published file (everything after the first dot of its name),
    /// so an installed model keeps the name a loader expects (`model.mlmodelc.zip`).
    var fileExtension: String {
        let name = url.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.firstIndex(of: ".") else { return "bin" }
        let ext = name[name.index(after: dot)...]
        let valid = !ext.isEmpty && ext.count <= 16 && ext.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == ".") }
        return valid ? String(ext) : "bin"
    }

    /// Checks the fields a client relies on before it downloads anything.
    func validate() throws {
        guard UUID(uuidString: id) != nil else { throw ModeldClientError.verification("release id '\(id)' is not a UUID") }
        guard Hex.isLowercase(sha256, bytes: 32) else {
            throw ModeldClientError.verification("release \(id): sha256 is not 64 lowercase hex")
        }
        guard size >= 0 else { throw ModeldClientError.verification("release \(id): negative size") }
        guard URL(string: url)?.scheme.map({ $0 == "http" || $0 == "https" }) == true else {
            throw ModeldClientError.verification("release \(id): url '\(url)' is not http(s)")
        }
        try chunks?.validate(release: id)
    }
}
