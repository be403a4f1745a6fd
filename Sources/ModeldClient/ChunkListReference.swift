import BinaryText
import Foundation

extension ChunkListReference {
    func validate(release id: String) throws {
        guard Hex.isLowercase(sha256, bytes: 32) else {
            throw ModeldClientError.verification("release \(id): chunks.sha256 is not 64 lowercase hex")
        }
        guard size >= 24 else { throw ModeldClientError.verification("release \(id): chunks.size \(size) is too small") }
        guard URL(string: url)?.scheme.map({ $0 == "http" || $0 == "https" }) == true else {
            throw ModeldClientError.verification("release \(id): chunks.url '\(url)' is not http(s)")
        }
    }
}
