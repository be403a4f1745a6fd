import Foundation
import ModeldSigning

/// Trusted keys given: every answer must carry a signature that verifies with one of them and
/// has not expired (SPEC §12 client rules; ModeldSigning does the checking).
struct SignedMetadataVerifier: MetadataVerifier {
    private let verifier: SignatureVerifier

    init(keys: [TrustedPublicKey]) throws {
        verifier = SignatureVerifier(trusted: try keys.map { key in
            do { return try TrustedKey(raw: Array(key.publicKey)) } catch {
                throw ModeldClientError.invalidConfiguration("trusted key: \(error)")
            }
        })
    }

    var acceptsUnsigned: Bool { false }

    func verifyLatest(_ answer: SignedAnswer, now: Date) throws -> Int64? {
        do {
            _ = try verifier.verifyLatest(paramsHeader: answer.paramsHeader, signatureHeader: answer.signatureHeader,
                                          body: answer.body, now: Int64(now.timeIntervalSince1970))
        } catch {
            throw ModeldClientError.verification("/latest: \(error.description)")
        }
        // verifyLatest parsed these same params, so they are present and valid here.
        return answer.paramsHeader.flatMap(SignatureParams.parse)?.catalog
    }

    func verifyPointer(_ bytes: [UInt8], now: Date) throws -> StaticPointer {
        let pointer = try Self.decode(bytes)
        do { _ = try verifier.verifyPointer(pointer, snapshot: nil, now: Int64(now.timeIntervalSince1970)) } catch {
            throw ModeldClientError.verification("\(SignedPointer.fileName): \(error.description)")
        }
        return StaticPointer(pointer)
    }

    func verifyIndex(_ bytes: [UInt8], now: Date) throws -> RulesIndex {
        let index = try Self.decodeIndex(bytes)
        do { _ = try verifier.verify(base: index.base, signatures: index.signatures, body: nil, now: Int64(now.timeIntervalSince1970)) } catch {
            throw ModeldClientError.verification("\(RulesIndex.path): \(error.description)")
        }
        return index
    }

    static func decodeIndex(_ bytes: [UInt8]) throws -> RulesIndex {
        do { return try RulesIndex.decode(bytes) } catch {
            throw ModeldClientError.verification("\(RulesIndex.path): \(error.description)")
        }
    }

    static func decode(_ bytes: [UInt8]) throws -> SignedPointer {
        do { return try SignedPointer.decode(bytes) } catch {
            throw ModeldClientError.verification("\(SignedPointer.fileName): \(error.description)")
        }
    }
}
