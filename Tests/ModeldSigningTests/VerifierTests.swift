import Testing
@testable import ModeldSigning

@Suite struct VerifierTests {
    let a = try! SigningKey(seed: Array(repeating: 1, count: 32))
    let b = try! SigningKey(seed: Array(repeating: 2, count: 32))
    let body = Array("{\"id\":\"1\"}".utf8)
    let now: Int64 = 1_000_000

    func stamp(_ keys: [SigningKey], ttl: Int64 = 600) -> SignedStamp {
        Signer(keys: keys, ttlSeconds: ttl).sign(kind: .latest, catalog: 3, body: body, now: now)
    }

    func check(_ s: SignedStamp, trust: [SigningKey], body: [UInt8]? = nil, at: Int64? = nil) -> Result<[String], SignatureVerifier.Failure> {
        Result { () throws(SignatureVerifier.Failure) in
            try SignatureVerifier(trusted: trust.map(\.publicKey)).verifyLatest(
                paramsHeader: s.paramsHeader, signatureHeader: s.signatureHeader, body: body ?? self.body, now: at ?? now)
        }
    }

    @Test func rotation_dualSigned_isAcceptedByEitherKeySet() throws {
        let s = stamp([a, b])
        #expect(try check(s, trust: [a]).get() == [a.keyID])
        #expect(try check(s, trust: [b]).get() == [b.keyID])
        #expect(try check(s, trust: [a, b]).get() == [a.keyID, b.keyID])
    }

    @Test func failures_areNamed() throws {
        let s = stamp([a])
        #expect(check(s, trust: [b]) == .failure(.badSignature(keyIDs: [a.keyID])))
        // Headers carry no size/sha256: another body gives another base, which no key signed.
        var flipped = body
        flipped[2] ^= 1
        #expect(check(s, trust: [a], body: flipped) == .failure(.badSignature(keyIDs: [a.keyID])))
        // With a stated base (the pointer), the body is checked against it first.
        let v0 = SignatureVerifier(trusted: [a.publicKey])
        #expect(throws: SignatureVerifier.Failure.sizeMismatch) { try v0.verify(base: s.base, signatures: s.signatures, body: body + [0x20], now: now) }
        #expect(throws: SignatureVerifier.Failure.sha256Mismatch) { try v0.verify(base: s.base, signatures: s.signatures, body: flipped, now: now) }
        #expect((try? check(s, trust: [a], at: now + 600 + 300).get()) == [a.keyID])
        #expect(check(s, trust: [a], at: now + 600 + 301) == .failure(.expired(expires: now + 600)))
        let v = SignatureVerifier(trusted: [a.publicKey])
        #expect(throws: SignatureVerifier.Failure.missing) {
            try v.verifyLatest(paramsHeader: nil, signatureHeader: s.signatureHeader, body: body, now: now)
        }
        #expect(throws: SignatureVerifier.Failure.self) {
            try v.verifyLatest(paramsHeader: "v=1", signatureHeader: s.signatureHeader, body: body, now: now)
        }
    }

    @Test func aSignatureUnderAnotherKind_orCatalog_doesNotVerify() {
        let s = stamp([a])
        var base = s.base
        base.kind = .details
        #expect(!a.publicKey.isValidSignature(s.signatures[0].bytes, for: base))
        base = s.base
        base.catalog += 1
        #expect(!a.publicKey.isValidSignature(s.signatures[0].bytes, for: base))
    }

    @Test func pointer_roundTrips_andVerifies() throws {
        let snapshot = Array("{\"2.0.0\":null}".utf8)
        let stamp = Signer(keys: [a, b], ttlSeconds: 60).sign(kind: .details, catalog: 9, body: snapshot, now: now)
        let pointer = SignedPointer(stamp: stamp)
        let text = String(decoding: pointer.encoded(), as: UTF8.self)
        #expect(text.hasPrefix("{\"v\":1,\"kind\":\"details\",\"catalog\":9,\"created\":1000000,\"expires\":1000060,\"file\":\"details/9.json\",\"size\":14,"))
        let decoded = try SignedPointer.decode(pointer.encoded())
        #expect(decoded == pointer)
        let v = SignatureVerifier(trusted: [b.publicKey])
        #expect(try v.verifyPointer(decoded, snapshot: snapshot, now: now) == [b.keyID])
        #expect(throws: SignatureVerifier.Failure.sha256Mismatch) { try v.verifyPointer(decoded, snapshot: Array("{\"2.0.0\":nulL}".utf8), now: now) }
        let moved = text.replacingOccurrences(of: "details/9.json", with: "../evil.json")
        #expect(throws: PointerError.self) { try SignedPointer.decode(Array(moved.utf8)) }
    }
}

private extension String {
    func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
