import Testing
@testable import ModeldSigning
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A fixed vector made with Python `cryptography` 48 (Ed25519PrivateKey.from_private_bytes):
/// seed 00 01 … 1f, body `{"id":"x"}`, catalog 7.
enum Vector {
    static let seed = Array(UInt8(0)...UInt8(31))
    static let publicBase64 = "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg="
    static let keyID = "56475aa75463474c"
    static let body = Array(#"{"id":"x"}"#.utf8)
    static let params = SignatureParams(catalog: 7, created: 1_763_900_000, expires: 1_764_504_800)
    static let base = "modeld-sig-v1\nkind=latest\ncatalog=7\ncreated=1763900000\nexpires=1764504800\nsize=10\n"
        + "sha256=5e2b92cc57ce618dfbb54844a31775e4b95c6fb552ee6bf5a068133c12d2ad90\n"
    static let pythonSignature = "dgtHTWldoK7hjYyRY4N4sgBXuU4BCaFkoWOBN6iUIe9NOQG6AY7NpxnO8Oc8R3n67y7kFFHisHop6pSTSDMSDw=="
}

@Suite struct SigningVectorTests {
    @Test func base_isTheExactLinesOfSPEC12() {
        #expect(String(decoding: Vector.params.base(kind: .latest, body: Vector.body).bytes, as: UTF8.self) == Vector.base)
    }

    @Test func keyID_andPublicKey_matchPython() throws {
        let key = try SigningKey(seed: Vector.seed)
        #expect(key.keyID == Vector.keyID)
        #expect(Data(key.publicKey.raw).base64EncodedString() == Vector.publicBase64)
    }

    @Test func pythonSignature_verifies_andOursVerifies() throws {
        let key = try SigningKey(seed: Vector.seed)
        let verifier = SignatureVerifier(trusted: [key.publicKey])
        let header = ":\(Vector.pythonSignature):;keyid=\"\(Vector.keyID)\""
        let ok = try verifier.verifyLatest(paramsHeader: Vector.params.headerValue, signatureHeader: header,
                                           body: Vector.body, now: 1_763_900_000)
        #expect(ok == [Vector.keyID])
        let ours = key.sign(Vector.params.base(kind: .latest, body: Vector.body))
        #expect(key.publicKey.isValidSignature(ours, for: Vector.params.base(kind: .latest, body: Vector.body)))
        #if os(Linux)
        // BoringSSL's Ed25519 is deterministic (RFC 8032); CryptoKit randomises, so only on Linux.
        #expect(Data(ours).base64EncodedString() == Vector.pythonSignature)
        #endif
    }

    @Test func keyFiles_roundTrip_andRejectTampering() throws {
        let key = try SigningKey(seed: Vector.seed)
        let priv = KeyFileFormat.privateLine(key)
        let pub = KeyFileFormat.publicLine(key.publicKey)
        #expect(pub == "modeld-ed25519-public-v1 \(Vector.publicBase64) keyid=\(Vector.keyID)\n")
        #expect(try KeyFileFormat.parsePrivate(priv).keyID == Vector.keyID)
        #expect(try KeyFileFormat.parsePublic(pub) == key.publicKey)
        let bad: [String] = [
            "", "modeld-ed25519-private-v1", "modeld-ed25519-public-v1 \(Vector.publicBase64) keyid=0000000000000000",
            "modeld-ed25519-public-v1 AAAA keyid=\(Vector.keyID)", "other \(Vector.publicBase64)",
            pub + pub,
        ]
        for text in bad {
            #expect(throws: KeyFileError.self, "\(text)") { try KeyFileFormat.parsePublic(text) }
        }
        #expect(throws: KeyFileError.self) { try KeyFileFormat.parsePrivate("modeld-ed25519-private-v1 AAAA") }
        #expect(throws: KeyFileError.self) { try KeyFileFormat.parsePrivate(pub) }
    }
}
