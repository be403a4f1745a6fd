#if !canImport(CryptoKit)
import CLibcrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SHA-256 (FIPS 180-4) over the system's libcrypto, with CryptoKit's API: `update` as bytes
/// arrive, `finalize` for the digest (the hasher stays usable), or `hash(data:)` at once.
public struct SHA256: Sendable {
    public typealias Digest = SHA256Digest
    private var context = SHA256_CTX()

    public init() { SHA256_Init(&context) }

    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        guard let base = bufferPointer.baseAddress, !bufferPointer.isEmpty else { return }
        SHA256_Update(&context, base, bufferPointer.count)
    }

    public mutating func update<D: DataProtocol>(data: D) {
        for region in data.regions { region.withUnsafeBytes { update(bufferPointer: $0) } }
    }

    public func finalize() -> Digest {
        var finished = context
        var bytes = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeMutableBufferPointer { _ = SHA256_Final($0.baseAddress, &finished) }
        return Digest(bytes: bytes)
    }

    public static func hash<D: DataProtocol>(data: D) -> Digest {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }
}

/// The 32 bytes of a SHA-256 digest.
public struct SHA256Digest: Sequence, Hashable, Sendable {
    private let bytes: [UInt8]

    fileprivate init(bytes: [UInt8]) { self.bytes = bytes }

    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    public var underestimatedCount: Int { bytes.count }
}
#endif
