import BinaryText
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CryptoPrimitives

/// What a signature covers (SPEC §12): fixed lines in a fixed order, so the base re-derives
/// byte for byte from parsed header or pointer fields — never canonical JSON.
public struct SignatureBase: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case latest
        case details
        /// A channel's rules pointer (SPEC §9.2).
        case rules
        /// The rules index, every channel's current snapshot (SPEC §17.2).
        case rulesIndex = "rules-index"
    }

    public var kind: Kind
    public var catalog: Int64
    public var created: Int64
    public var expires: Int64
    /// Bytes of the identity (un-gzipped) body.
    public var size: Int
    /// Lowercase hex SHA-256 of the identity body.
    public var sha256: String

    public init(kind: Kind, catalog: Int64, created: Int64, expires: Int64, size: Int, sha256: String) {
        self.kind = kind
        self.catalog = catalog
        self.created = created
        self.expires = expires
        self.size = size
        self.sha256 = sha256
    }

    public init(kind: Kind, catalog: Int64, created: Int64, expires: Int64, body: [UInt8]) {
        self.init(kind: kind, catalog: catalog, created: created, expires: expires,
                  size: body.count, sha256: Hex.encode(SHA256.hash(data: body)))
    }

    /// `modeld-sig-v1\nkind=…\ncatalog=…\ncreated=…\nexpires=…\nsize=…\nsha256=…\n`
    public var bytes: [UInt8] {
        Array("""
        modeld-sig-v1
        kind=\(kind.rawValue)
        catalog=\(catalog)
        created=\(created)
        expires=\(expires)
        size=\(size)
        sha256=\(sha256)

        """.utf8)
    }

    /// True when `body` is the body this base describes.
    public func describes(_ body: [UInt8]) -> Bool {
        body.count == size && Hex.encode(SHA256.hash(data: body)) == sha256
    }
}
