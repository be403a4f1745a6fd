import Foundation
import ModeldSigning

/// An update-check answer exactly as received, for signature verification (SPEC §12): the
/// signature headers and the identity (un-gzipped) body.
struct SignedAnswer: Sendable {
    var paramsHeader: String?
    var signatureHeader: String?
    var body: [UInt8]
}

/// A static pointer (`latest_model_details.sig.json`, or a channel's rules pointer) once
/// verified: which snapshot to fetch.
struct StaticPointer: Sendable {
    var kind: SignatureBase.Kind
    var channel: String?
    var catalog: Int64
    var file: String
    var size: Int
    var sha256: String

    init(_ pointer: SignedPointer) {
        kind = pointer.kind
        channel = pointer.channel
        catalog = pointer.catalog
        file = pointer.file
        size = pointer.size
        sha256 = pointer.sha256
    }
}

/// The seam between the client and the signature code: verifies a dynamic answer or a static
/// pointer and returns the catalog version it vouches for (nil when the answer was accepted
/// unsigned). Expiry is the verifier's job; the catalog ratchet is the client's.
protocol MetadataVerifier: Sendable {
    var acceptsUnsigned: Bool { get }
    func verifyLatest(_ answer: SignedAnswer, now: Date) throws -> Int64?
    func verifyPointer(_ bytes: [UInt8], now: Date) throws -> StaticPointer
    /// `rules/index.sig.json` (SPEC §17.2), parsed and, with trusted keys, verified.
    func verifyIndex(_ bytes: [UInt8], now: Date) throws -> RulesIndex
}

/// No trusted keys and `allowUnsigned`: every answer is accepted unsigned (development only;
/// the `modeld-client` demo says so on stderr).
struct UnsignedVerifier: MetadataVerifier {
    var acceptsUnsigned: Bool { true }

    func verifyLatest(_ answer: SignedAnswer, now: Date) throws -> Int64? { nil }

    func verifyPointer(_ bytes: [UInt8], now: Date) throws -> StaticPointer {
        StaticPointer(try SignedMetadataVerifier.decode(bytes))
    }

    func verifyIndex(_ bytes: [UInt8], now: Date) throws -> RulesIndex { try SignedMetadataVerifier.decodeIndex(bytes) }
}

extension ModeldConfiguration {
    /// Secure by default (SPEC §13.2): without trusted keys, unsigned metadata only when the
    /// configuration says `allowUnsigned`.
    func makeVerifier() throws -> any MetadataVerifier {
        guard trustedKeys.isEmpty else { return try SignedMetadataVerifier(keys: trustedKeys) }
        guard allowUnsigned else {
            throw ModeldClientError.invalidConfiguration(
                "no trustedKeys: unsigned update metadata is refused; give the keys of `modelctl keys generate`, "
                + "or set allowUnsigned = true (development only)")
        }
        return UnsignedVerifier()
    }
}
