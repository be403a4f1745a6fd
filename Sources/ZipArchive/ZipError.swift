/// Why an archive was refused. Every refusal happens before a byte of the entry it names is
/// handed out, except a size or CRC that only the data itself can disprove.
public enum ZipError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a zip file, or its structure is broken (offsets outside the file, bad signatures).
    case malformed(String)
    /// A feature this reader does not take: multi-disk archives, compression other than
    /// stored/deflate.
    case unsupported(String)
    /// An entry name that could escape the target directory (absolute, `..`, `\`, NUL, empty
    /// components) or collides with another entry.
    case unsafePath(String)
    /// A symbolic link, device, FIFO or socket entry.
    case notARegularFile(String)
    /// An encrypted entry (traditional PKWARE or AES).
    case encrypted(String)
    /// The central directory, the local header, the data descriptor and the data disagree on an
    /// entry's sizes or CRC.
    case sizeMismatch(String)
    /// The declared unpacked total exceeds the limits (a zip bomb).
    case tooLarge(String)

    public var description: String {
        switch self {
        case .malformed(let m): "not a valid zip archive: \(m)"
        case .unsupported(let m): "unsupported zip feature: \(m)"
        case .unsafePath(let m): "unsafe entry path: \(m)"
        case .notARegularFile(let m): "not a regular file or directory: \(m)"
        case .encrypted(let m): "encrypted entry: \(m)"
        case .sizeMismatch(let m): "entry sizes disagree: \(m)"
        case .tooLarge(let m): "archive too large when unpacked: \(m)"
        }
    }
}
