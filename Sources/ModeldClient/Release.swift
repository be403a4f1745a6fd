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
    /// The file's packed form and its patches from earlier releases (SPEC §16), once the server
    /// derived them: with `chunks`, the ways the client weighs against the full file.
    public var packed: PackedReference?
    public var patches: [PatchReference]?

    enum CodingKeys: String, CodingKey {
        case url, id, sha256, size, channel, label, variant, chunks, packed, patches
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
        guard size >= 0 else { throw ModeldClientError.verification("release \(id): negative size") }
        try Self.validateLink(url, sha256: sha256, field: "", release: id)
        try chunks?.validate(release: id)
        if let packed {
            try Self.validateLink(packed.url, sha256: packed.sha256, field: "packed.", release: id)
            guard packed.size > 0, [1, 2, 4].contains(packed.width) else {
                throw ModeldClientError.verification("release \(id): packed.size \(packed.size) or width \(packed.width) is invalid")
            }
        }
        for patch in patches ?? [] {
            try Self.validateLink(patch.url, sha256: patch.sha256, field: "patches.", release: id)
            guard patch.size > 0, UUID(uuidString: patch.from) != nil else {
                throw ModeldClientError.verification("release \(id): a patch's size \(patch.size) or from '\(patch.from)' is invalid")
            }
        }
    }

    /// A file the release names (itself, its chunk list, pack or patch): 64 lowercase hex and an
    /// http(s) URL. `field` prefixes the member's name in the message (`"chunks."`).
    static func validateLink(_ url: String, sha256: String, field: String, release id: String) throws {
        guard Hex.isLowercase(sha256, bytes: 32) else {
            throw ModeldClientError.verification("release \(id): \(field)sha256 is not 64 lowercase hex")
        }
        guard URL(string: url)?.scheme.map({ $0 == "http" || $0 == "https" }) == true else {
            throw ModeldClientError.verification("release \(id): \(field)url '\(url)' is not http(s)")
        }
    }
}
