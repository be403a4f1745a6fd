import BinaryText
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CryptoPrimitives

/// keyid = first 16 hex of SHA-256 of the raw 32-byte public key (SPEC §12). A hint for picking
/// the key to try, never a security decision by itself.
public enum KeyID {
    public static func of(publicKey raw: [UInt8]) -> String {
        String(Hex.encode(SHA256.hash(data: raw)).prefix(16))
    }

    public static func isValid(_ text: String) -> Bool { Hex.isLowercase(text, bytes: 8) }
}

/// An Ed25519 private key from its 32-byte RFC 8032 seed.
public struct SigningKey: Sendable {
    private let key: Curve25519.Signing.PrivateKey
    public let keyID: String

    public init(seed: [UInt8]) throws(KeyFileError) {
        guard seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            throw KeyFileError("the private key must be 32 bytes (an Ed25519 seed)")
        }
        self.key = key
        keyID = KeyID.of(publicKey: Array(key.publicKey.rawRepresentation))
    }

    /// A fresh random key (for `modelctl keys generate`).
    public static func generate() -> SigningKey {
        // A new key's seed is always 32 bytes, so this cannot throw.
        try! SigningKey(seed: Array(Curve25519.Signing.PrivateKey().rawRepresentation))
    }

    public var seed: [UInt8] { Array(key.rawRepresentation) }
    public var publicKey: TrustedKey { TrustedKey(key.publicKey) }

    public func sign(_ base: SignatureBase) -> [UInt8] {
        // Signing with a valid key over a byte buffer does not fail in practice; a failure would
        // be a broken crypto library, which no caller could recover from.
        Array(try! key.signature(for: base.bytes))
    }
}

/// A public key an app (or `modelctl verify`) trusts.
public struct TrustedKey: Sendable, Equatable {
    public let raw: [UInt8]
    public let keyID: String

    init(_ key: Curve25519.Signing.PublicKey) {
        raw = Array(key.rawRepresentation)
        keyID = KeyID.of(publicKey: raw)
    }

    public init(raw: [UInt8]) throws(KeyFileError) {
        guard raw.count == 32, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            throw KeyFileError("the public key must be 32 bytes (Ed25519)")
        }
        self.init(key)
    }

    public func isValidSignature(_ signature: [UInt8], for base: SignatureBase) -> Bool {
        // A key that does not load verifies nothing: a plain "not valid".
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { return false }
        return key.isValidSignature(signature, for: base.bytes)
    }
}

public struct KeyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// The one-line key file formats of `modelctl keys generate` (SPEC §12):
/// `modeld-ed25519-private-v1 <b64 seed>` and `modeld-ed25519-public-v1 <b64> keyid=<16 hex>`.
public enum KeyFileFormat {
    public static let privateTag = "modeld-ed25519-private-v1"
    public static let publicTag = "modeld-ed25519-public-v1"

    public static func privateLine(_ key: SigningKey) -> String {
        "\(privateTag) \(Data(key.seed).base64EncodedString())\n"
    }

    public static func publicLine(_ key: TrustedKey) -> String {
        "\(publicTag) \(Data(key.raw).base64EncodedString()) keyid=\(key.keyID)\n"
    }

    public static func parsePrivate(_ text: String) throws(KeyFileError) -> SigningKey {
        let fields = try fieldsOfOneLine(text)
        guard fields.count == 2, fields[0] == privateTag, let seed = Data(base64Encoded: String(fields[1])) else {
            throw KeyFileError("expected one line \"\(privateTag) <base64 of the 32-byte seed>\"")
        }
        return try SigningKey(seed: Array(seed))
    }

    /// The keyid is recomputed and must match the one written, so a hand-edited file is caught.
    public static func parsePublic(_ text: String) throws(KeyFileError) -> TrustedKey {
        let fields = try fieldsOfOneLine(text)
        guard fields.count == 3, fields[0] == publicTag, let raw = Data(base64Encoded: String(fields[1])),
              fields[2].hasPrefix("keyid=") else {
            throw KeyFileError("expected one line \"\(publicTag) <base64 of the 32-byte key> keyid=<16 hex>\"")
        }
        let key = try TrustedKey(raw: Array(raw))
        guard fields[2].dropFirst(6) == key.keyID else {
            throw KeyFileError("keyid \(fields[2].dropFirst(6)) does not match the key (its keyid is \(key.keyID))")
        }
        return key
    }

    private static func fieldsOfOneLine(_ text: String) throws(KeyFileError) -> [Substring] {
        var line = Substring(text)
        if line.hasSuffix("\n") { line = line.dropLast() }
        guard !line.contains("\n"), !line.contains("\r") else { throw KeyFileError("expected exactly one line") }
        return line.split(separator: " ", omittingEmptySubsequences: true)
    }
}
