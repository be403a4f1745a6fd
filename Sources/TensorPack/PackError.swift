/// Why an MDPACK1 stream was refused. Every case names where the fault is, so a client can log
/// it and fall back, and an operator can tell a damaged download from a wrong base.
public enum PackError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not an MDPACK1 stream at all.
    case badMagic
    /// The fixed header or the block index breaks a rule of the format.
    case badHeader(String)
    /// Block `index`'s coding is malformed (its method, plane lengths or zlib data).
    case badBlock(index: Int, String)
    /// Block `index` decoded, but not to the bytes its SHA-256 in the index names.
    case blockDigestMismatch(index: Int)
    /// Every block matched, yet the whole output is not the file the header names.
    case fileDigestMismatch
    /// The stream ended before its last block.
    case truncated
    /// Bytes follow the last block.
    case trailingBytes
    /// A patch needs a base of the size its header names (or was given none).
    case wrongBase(String)
    /// The base could not be read.
    case baseUnreadable(String)

    public var description: String {
        switch self {
        case .badMagic: "not an MDPACK1 file"
        case .badHeader(let why): "bad MDPACK1 header: \(why)"
        case .badBlock(let index, let why): "block \(index): \(why)"
        case .blockDigestMismatch(let index): "block \(index) does not match its SHA-256 (damaged, or a patch applied to the wrong base)"
        case .fileDigestMismatch: "the decoded file does not match the SHA-256 in the header"
        case .truncated: "MDPACK1 data ends before its last block"
        case .trailingBytes: "bytes after the last block"
        case .wrongBase(let why): "wrong base for this patch: \(why)"
        case .baseUnreadable(let why): "cannot read the base: \(why)"
        }
    }
}
