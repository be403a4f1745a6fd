/// A file's packed form (SPEC §16): `"packed":{"url","sha256","size","width"}` of the §4.1
/// document, §9.2's rules entries and the details, covered by their signatures like `chunks`.
public struct PackedReference: Codable, Sendable, Equatable {
    public var url: String
    public var sha256: String
    public var size: Int64
    /// The byte-plane width the encoder chose (1, 2 or 4).
    public var width: Int

    public init(url: String, sha256: String, size: Int64, width: Int) {
        (self.url, self.sha256, self.size, self.width) = (url, sha256, size, width)
    }
}

/// One patch to a file (SPEC §16): `"patches":[{"from","url","sha256","size"}]`, the new file
/// from the file of release `from` (for a variant, that release's same-named variant).
public struct PatchReference: Codable, Sendable, Equatable {
    public var from: String
    public var url: String
    public var sha256: String
    public var size: Int64

    public init(from: String, url: String, sha256: String, size: Int64) {
        (self.from, self.url, self.sha256, self.size) = (from, url, sha256, size)
    }
}
