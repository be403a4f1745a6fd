import Foundation

extension ChunkListReference {
    func validate(release id: String) throws {
        try ReleaseDocument.validateLink(url, sha256: sha256, field: "chunks.", release: id)
        guard size >= 24 else { throw ModeldClientError.verification("release \(id): chunks.size \(size) is too small") }
    }
}
