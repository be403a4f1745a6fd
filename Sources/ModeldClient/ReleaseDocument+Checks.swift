import Foundation
import ReleaseSelection

/// The client's side of the shared §4.1 document (ReleaseSelection's `ReleaseDocument`, which
/// the server writes and this library decodes): what it checks before a download and how it
/// names the installed file.
extension ReleaseDocument {
    /// The file extension of the published file (everything after the first dot of its name),
    /// so an installed model keeps the name a loader expects (`model.mlmodelc.zip`).
    var fileExtension: String {
        ReleaseFields.ext(ofFileName: url.split(separator: "/").last.map(String.init) ?? "") ?? "bin"
    }

    /// Checks the fields a client relies on before it downloads anything, with the release's
    /// own field rules (ReleaseFields: the ones the server publishes by).
    func validate() throws {
        do throws(InvalidInput) { try checkFields() } catch {
            throw ModeldClientError.verification("release \(id): \(error)")
        }
        guard size >= 0 else { throw ModeldClientError.verification("release \(id): negative size") }
        if let diskBytes, diskBytes < size { throw ModeldClientError.verification("release \(id): disk_bytes \(diskBytes) is below size \(size)") }
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
            guard patch.size > 0, (try? ReleaseFields.checkID(patch.from)) != nil else {
                throw ModeldClientError.verification("release \(id): a patch's size \(patch.size) or from '\(patch.from)' is invalid")
            }
        }
    }

    /// A file the release names (itself, its chunk list, pack or patch): 64 lowercase hex and an
    /// http(s) URL. `field` prefixes the member's name in the message (`"chunks."`).
    static func validateLink(_ url: String, sha256: String, field: String, release id: String) throws {
        guard (try? ReleaseFields.checkSHA256(sha256)) != nil else {
            throw ModeldClientError.verification("release \(id): \(field)sha256 is not 64 lowercase hex")
        }
        guard URL(string: url)?.scheme.map({ $0 == "http" || $0 == "https" }) == true else {
            throw ModeldClientError.verification("release \(id): \(field)url '\(url)' is not http(s)")
        }
    }
}
