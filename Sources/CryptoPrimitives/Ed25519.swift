#if !canImport(CryptoKit)
import CLibcrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Ed25519 (RFC 8032) over the system's libcrypto, with CryptoKit's names. The keys hold their
/// raw 32 bytes, so they are plain values; each operation loads them into an `EVP_PKEY` of its
/// own (signing happens at publish, verifying once per metadata fetch: the load is noise there).
public enum Curve25519 {
    public enum Signing {
        public struct PrivateKey: Sendable {
            private let seed: [UInt8]
            public let publicKey: PublicKey

            /// A fresh key from the system's random source.
            public init() {
                var generator = SystemRandomNumberGenerator()
                // A random 32-byte seed is a valid key, so this cannot fail.
                try! self.init(rawRepresentation: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            }

            /// The 32-byte seed.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                let seed = rawRepresentation.withUnsafeBytes { Array($0) }
                guard seed.count == 32 else { throw CryptoPrimitivesError.incorrectKeySize }
                let key = try EVPKey(privateSeed: seed)
                self.seed = seed
                publicKey = try PublicKey(rawRepresentation: key.rawPublicKey())
            }

            public var rawRepresentation: Data { Data(seed) }

            public func signature<D: DataProtocol>(for data: D) throws -> Data {
                let key = try EVPKey(privateSeed: seed)
                return try key.sign(Array(data))
            }
        }

        public struct PublicKey: Sendable {
            private let raw: [UInt8]

            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                let raw = rawRepresentation.withUnsafeBytes { Array($0) }
                guard raw.count == 32 else { throw CryptoPrimitivesError.incorrectKeySize }
                self.raw = raw
            }

            public var rawRepresentation: Data { Data(raw) }

            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool {
                guard let key = try? EVPKey(publicRaw: raw) else { return false }
                return key.verify(Array(signature), Array(data))
            }
        }
    }
}

public enum CryptoPrimitivesError: Error, Sendable {
    case incorrectKeySize
    case libcrypto(String)
}

/// One loaded `EVP_PKEY`, freed with its owner.
private final class EVPKey {
    private let key: OpaquePointer

    init(privateSeed seed: [UInt8]) throws {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw CryptoPrimitivesError.libcrypto("EVP_PKEY_new_raw_private_key")
        }
        self.key = key
    }

    init(publicRaw raw: [UInt8]) throws {
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, raw, raw.count) else {
            throw CryptoPrimitivesError.libcrypto("EVP_PKEY_new_raw_public_key")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    func rawPublicKey() throws -> [UInt8] {
        var raw = [UInt8](repeating: 0, count: 32)
        var length = raw.count
        guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1, length == 32 else {
            throw CryptoPrimitivesError.libcrypto("EVP_PKEY_get_raw_public_key")
        }
        return raw
    }

    func sign(_ message: [UInt8]) throws -> Data {
        guard let context = EVP_MD_CTX_new() else { throw CryptoPrimitivesError.libcrypto("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        // Ed25519 is "one-shot": no digest is named, and the whole message goes in one call.
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1,
              EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64 else {
            throw CryptoPrimitivesError.libcrypto("EVP_DigestSign")
        }
        return Data(signature)
    }

    func verify(_ signature: [UInt8], _ message: [UInt8]) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        return EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
#endif
