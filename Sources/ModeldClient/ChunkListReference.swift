import Foundation

extension ChunkListReference {
    func validate(release id: String) throws {
        guard sha256.count == 64, sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw ModeldClientError.verification("release \(id): chunks.sha256 is not 64 lowercase hex")
        }
        guard size >= 24 else { throw ModeldClientError.verification("release \(id): chunks.size \(size) is too small") }
        guard URL(string: url)?.scheme.map({ $0 == "http" || $0 == "https" }) == true else {
            throw ModeldClientError.verification("release \(id): chunks.url '\(url)' is not http(s)")
        }
    }
}
