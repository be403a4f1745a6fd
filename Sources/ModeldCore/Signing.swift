import HTTPServer
import ModelCatalog
import ModeldConfig
import ModeldSigning

/// The server's signing keys and clock (SPEC §12). Used where bodies are prepared — catalog
/// change, the re-signing thread, and the event-commit thread for POST /latest — never on a
/// loop thread per request.
struct Signing: Sendable {
    let signer: Signer
    let resignSeconds: Int

    func stamp(_ identity: [UInt8], catalog: Int64, kind: SignatureBase.Kind = .latest) -> SignedStamp {
        signer.sign(kind: kind, catalog: catalog, body: identity, now: Self.now())
    }

    static func now() -> Int64 { Timestamp.now().millisecondsSinceEpoch / 1000 }

    /// Loads the configured key files with SPEC §12's checks; a bad one is a configuration
    /// error (exit 2) naming the file.
    static func load(_ config: Configuration.Signing) throws(ConfigurationError) -> Signing {
        var keys: [SigningKey] = []
        for path in config.keys {
            do throws(KeyFileError) {
                keys.append(try SigningKeyFile.loadPrivate(path))
            } catch {
                throw ConfigurationError(subject: "signing key \(path)", reason: error.reason)
            }
        }
        return Signing(signer: Signer(keys: keys, ttlSeconds: Int64(config.ttlSeconds)), resignSeconds: config.resignSeconds)
    }
}

extension Response {
    /// Adds `Modeld-Signature-Params` and `Modeld-Signature` (SPEC §12).
    mutating func sign(_ stamp: SignedStamp?) {
        guard let stamp else { return }
        headers.append(SignatureParams.headerName, stamp.paramsHeader)
        headers.append(SignatureList.headerName, stamp.signatureHeader)
    }
}
