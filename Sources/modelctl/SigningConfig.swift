import Foundation
import ModelCatalog
import ModeldSigning

/// modelctl's signing keys (SPEC §12: modelctl signs when it has keys — `--key FILE`, else
/// `signing` of ./config/modeld.json, read by modeld's own loader).
enum SigningConfig {
    /// `--key` files when given (with the config's ttl), else the config's keys; nil = no keys.
    /// A key file modeld would refuse is a usage error (exit 2) naming it.
    static func signer(keyFiles: [String]) throws(CLIFailure) -> (signer: Signer, graceDays: Int)? {
        let config = try ShippedConfig.load()
        let paths = keyFiles.isEmpty ? (config?.signing?.keys ?? []) : keyFiles
        guard !paths.isEmpty else { return nil }
        guard paths.count <= Signer.maxKeys else { throw CLIFailure("at most \(Signer.maxKeys) signing keys", exitCode: 2) }
        var keys: [SigningKey] = []
        for path in paths {
            do { keys.append(try SigningKeyFile.loadPrivate(path)) } catch { throw CLIFailure(error.reason, exitCode: 2) }
        }
        let ttl = config?.signing?.ttlSeconds ?? 604_800
        return (Signer(keys: keys, ttlSeconds: Int64(ttl)), config?.retiredGraceDays ?? 7)
    }

    /// How modelctl reports a snapshot it refused to sign (SPEC §12.1): one stderr line naming the file.
    static let reportRefusal: @Sendable (SnapshotMismatch) -> Void = { printError("modelctl: error: refusing to sign: \($0.message)") }

    /// The store of an offline writer with `publicBaseURL` configured (it must be the catalog's),
    /// else one that takes the catalog's base URL whatever this host's config says (every offline
    /// change that is not a publish). It signs the rules pointers with `signing`'s keys (unsigned
    /// without) and prints every refusal.
    static func store(_ modelsDir: String, publicBaseURL: String? = nil, signing: (signer: Signer, graceDays: Int)?) -> CatalogStore {
        CatalogStore(directory: modelsDir, publicBaseURL: publicBaseURL ?? OfflineOptions.defaultPublicBaseURL, isFallbackBaseURL: publicBaseURL == nil,
                     signer: signing?.signer, graceDays: signing?.graceDays ?? graceDays(), onRefused: reportRefusal)
    }

    /// `retired_grace_days` of ./config/modeld.json (default 7): how long superseded snapshots stay.
    static func graceDays() -> Int { ((try? ShippedConfig.load()) ?? nil)?.retiredGraceDays ?? 7 }

    /// After an offline catalog change (`what`, e.g. "published"): with keys, the snapshot and
    /// the pointer follow at once (SPEC §12), so a mirrored bucket never serves a pointer naming
    /// an older version. A signing failure is a warning: the change stands, and a running
    /// server or `modelctl sign refresh` re-signs.
    static func refresh(_ store: CatalogStore, with signing: (signer: Signer, graceDays: Int)?, after what: String) {
        guard let signing else { return }
        do throws(CatalogError) {
            try SignedDetails(store: store, signer: signing.signer, graceDays: signing.graceDays)
                .refresh(now: Int64(Date().timeIntervalSince1970))
        } catch {
            printError("modelctl: warning: \(what), but \(SignedPointer.fileName) was not written: \(error.message)")
        }
    }

    /// keyids of the configured signing keys that load (for `keys list`).
    static func loadedKeyIDs() -> Set<String> {
        guard let keys = (try? ShippedConfig.load())??.signing?.keys else { return [] }
        return Set(keys.compactMap { try? SigningKeyFile.loadPrivate($0).keyID })
    }
}
