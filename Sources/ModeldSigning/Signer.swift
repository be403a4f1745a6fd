/// The signing keys of a server or of `modelctl` (one, or two during a rotation) and the
/// lifetime of what they sign.
public struct Signer: Sendable {
    public static let maxKeys = 2

    public let keys: [SigningKey]
    public let ttlSeconds: Int64

    public init(keys: [SigningKey], ttlSeconds: Int64) {
        precondition(!keys.isEmpty && keys.count <= Self.maxKeys, "1 or 2 signing keys")
        self.keys = keys
        self.ttlSeconds = ttlSeconds
    }

    /// The params and one signature per key for `body` at catalog version `catalog`.
    public func sign(kind: SignatureBase.Kind, catalog: Int64, body: [UInt8], now: Int64) -> SignedStamp {
        let params = SignatureParams(catalog: catalog, created: now, expires: now + ttlSeconds)
        let base = params.base(kind: kind, body: body)
        return SignedStamp(params: params, base: base,
                           signatures: keys.map { Signature(keyID: $0.keyID, bytes: $0.sign(base)) })
    }
}

/// One signing of one body, with its header values formatted once.
public struct SignedStamp: Sendable {
    public let params: SignatureParams
    public let base: SignatureBase
    public let signatures: [Signature]
    public let paramsHeader: String
    public let signatureHeader: String

    public init(params: SignatureParams, base: SignatureBase, signatures: [Signature]) {
        self.params = params
        self.base = base
        self.signatures = signatures
        paramsHeader = params.headerValue
        signatureHeader = SignatureList.headerValue(signatures)
    }
}
