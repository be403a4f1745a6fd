import BinaryText
import CryptoPrimitives
import Foundation
import Testing

/// The published vectors, through the same API the package calls (libcrypto on Linux).
struct SHA256Tests {
    @Test func fips180Vectors() {
        #expect(Hex.encode(SHA256.hash(data: [UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.encode(SHA256.hash(data: Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(SHA256.hash(data: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func millionAs_fedInUnevenPieces_equalsTheVector() {
        var hasher = SHA256()
        var fed = 0, piece = 1
        while fed < 1_000_000 {
            let n = min(piece, 1_000_000 - fed)
            hasher.update(data: Data(repeating: UInt8(ascii: "a"), count: n))
            fed += n
            piece = piece * 3 % 65_537 + 1
        }
        #expect(Hex.encode(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func aCopyHashesOnIndependently_andFinalizeLeavesTheHasherUsable() {
        var first = SHA256()
        first.update(data: Array("ab".utf8))
        var second = first
        second.update(data: Array("c".utf8))
        #expect(Hex.encode(first.finalize()) == Hex.encode(SHA256.hash(data: Array("ab".utf8))))
        first.update(data: Array("c".utf8))
        #expect(first.finalize() == second.finalize())
        #expect(Array(second.finalize()).count == 32)
    }

    @Test func bufferPointerAndDataFeedTheSameBytes() {
        let bytes = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var viaPointer = SHA256()
        bytes.withUnsafeBytes { viaPointer.update(bufferPointer: $0) }
        viaPointer.update(bufferPointer: UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(viaPointer.finalize() == SHA256.hash(data: Data(bytes)))
        #expect(SHA256.hash(data: bytes[10..<20]) == SHA256.hash(data: Array(bytes[10..<20])))
    }
}

/// RFC 8032 §7.1, tests 1 and 2.
struct Ed25519Tests {
    static let vectors: [(seed: String, publicKey: String, message: String, signature: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ]

    @Test func rfc8032Vectors_signAndVerify() throws {
        for v in Self.vectors {
            let key = try Curve25519.Signing.PrivateKey(rawRepresentation: try #require(Hex.decode(v.seed)))
            let message = try #require(Hex.decode(v.message))
            #expect(Hex.encode(key.publicKey.rawRepresentation) == v.publicKey)
            #expect(Hex.encode(try key.signature(for: message)) == v.signature)
            let publicKey = try Curve25519.Signing.PublicKey(rawRepresentation: try #require(Hex.decode(v.publicKey)))
            let signature = try #require(Hex.decode(v.signature))
            #expect(publicKey.isValidSignature(signature, for: message))
            var altered = signature
            altered[7] ^= 1
            #expect(!publicKey.isValidSignature(altered, for: message))
            #expect(!publicKey.isValidSignature(signature, for: message + [0]))
            #expect(!publicKey.isValidSignature(signature.prefix(63), for: message))
        }
    }

    @Test func freshKeysDiffer_andVerifyTheirOwnSignatures() throws {
        let a = Curve25519.Signing.PrivateKey(), b = Curve25519.Signing.PrivateKey()
        #expect(a.rawRepresentation != b.rawRepresentation)
        let signature = try a.signature(for: Array("modeld".utf8))
        #expect(a.publicKey.isValidSignature(signature, for: Array("modeld".utf8)))
        #expect(!b.publicKey.isValidSignature(signature, for: Array("modeld".utf8)))
    }

    @Test func keysOfTheWrongSize_areRefused() {
        #expect(throws: (any Error).self) { try Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: (any Error).self) { try Curve25519.Signing.PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 33)) }
    }
}
