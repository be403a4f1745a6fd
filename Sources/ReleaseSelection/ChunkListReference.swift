/// Where a file's chunk list is and what it must be (SPEC §14): `"chunks":{"url","sha256","size"}`
/// of the §4.1 document and of §9.2's rules entries, covered by their signatures. Here, next to
/// the rules snapshot, so a release evaluated on the device carries the same reference that
/// `/latest` would have answered.
public struct ChunkListReference: Codable, Sendable, Equatable {
    public var url: String
    public var sha256: String
    public var size: Int64

    public init(url: String, sha256: String, size: Int64) {
        self.url = url
        self.sha256 = sha256
        self.size = size
    }
}
