/// Checks signed metadata against the keys a client trusts (SPEC §12, client rules of §13).
/// The rollback ratchet (`catalog` lower than the highest verified) needs client state and is
/// the caller's; everything that follows from one answer is here.
public struct SignatureVerifier: Sendable {
    /// Clock skew tolerated on `expires` (SPEC §12: `expires` < now − 300 s is rejected).
    public static let expirySkewSeconds: Int64 = 300

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case missing
        case malformed(String)
        case sizeMismatch
        case sha256Mismatch
        /// No signature verifies with a trusted key (the keyids seen are listed).
        case badSignature(keyIDs: [String])
        case expired(expires: Int64)

        public var description: String {
            switch self {
            case .missing: "no signature"
            case .malformed(let why): "malformed signature: \(why)"
            case .sizeMismatch: "body size does not match the signed size"
            case .sha256Mismatch: "body sha256 does not match the signed sha256"
            case .badSignature(let ids): "no signature verifies with a trusted key (keyids \(ids.joined(separator: ", ")))"
            case .expired(let t): "signature expired at \(t)"
            }
        }
    }

    public let trusted: [TrustedKey]

    public init(trusted: [TrustedKey]) { self.trusted = trusted }

    /// The keyids of the trusted keys whose signature verified (at least one, else a failure).
    public func verify(base: SignatureBase, signatures: [Signature], body: [UInt8]?, now: Int64) throws(Failure) -> [String] {
        guard !signatures.isEmpty else { throw .missing }
        if let body {
            guard body.count == base.size else { throw .sizeMismatch }
            guard base.describes(body) else { throw .sha256Mismatch }
        }
        var verified: [String] = []
        for s in signatures {
            // The keyid is only a hint: every trusted key with that id is tried, none other.
            for key in trusted where key.keyID == s.keyID && key.isValidSignature(s.bytes, for: base) {
                verified.append(key.keyID)
            }
        }
        guard !verified.isEmpty else { throw .badSignature(keyIDs: signatures.map(\.keyID)) }
        guard base.expires >= now - Self.expirySkewSeconds else { throw .expired(expires: base.expires) }
        return verified
    }

    /// A `/latest` answer from its raw header values and identity body (nil for HEAD/304:
    /// size and sha256 are then checked by the caller against its cached body).
    public func verifyLatest(paramsHeader: String?, signatureHeader: String?, body: [UInt8], now: Int64) throws(Failure) -> [String] {
        guard let paramsHeader, let signatureHeader else { throw .missing }
        guard let params = SignatureParams.parse(paramsHeader) else { throw .malformed("\(SignatureParams.headerName): \(paramsHeader)") }
        guard let signatures = SignatureList.parse(signatureHeader) else { throw .malformed("\(SignatureList.headerName): \(signatureHeader)") }
        return try verify(base: params.base(kind: .latest, body: body), signatures: signatures, body: body, now: now)
    }

    /// The static pointer and, when given, the snapshot bytes it names.
    public func verifyPointer(_ pointer: SignedPointer, snapshot: [UInt8]?, now: Int64) throws(Failure) -> [String] {
        try verify(base: pointer.base, signatures: pointer.signatures, body: snapshot, now: now)
    }
}
