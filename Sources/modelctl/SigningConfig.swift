import Foundation
import ModelCatalog
import ModeldSigning

/// The `signing` object of `./config/modeld.json` as modelctl sees it (SPEC §12: modelctl signs
/// when it has keys, from there or `--key FILE`).
struct SigningConfig {
    static let defaultTTLSeconds: Int64 = 604_800

    var keyPaths: [String]
    var ttlSeconds: Int64
    var retiredGraceDays: Int

    /// nil when the config file has no `signing`; a failure when it cannot be read.
    static func load(path: String = OfflineOptions.configFile) throws(CLIFailure) -> SigningConfig? {
        struct File: Decodable {
            struct Signing: Decodable { let keys: [String]; let ttl_seconds: Int64? }
            let signing: Signing?
            let retired_grace_days: Int?
        }
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let file = try? JSONDecoder().decode(File.self, from: data) else {
            throw CLIFailure("cannot read the signing configuration from \(path)")
        }
        guard let s = file.signing else { return nil }
        return SigningConfig(keyPaths: s.keys, ttlSeconds: s.ttl_seconds ?? defaultTTLSeconds,
                             retiredGraceDays: file.retired_grace_days ?? 7)
    }

    /// `--key` files when given (with the config's ttl), else the config's keys; nil = no keys.
    static func signer(keyFiles: [String]) throws(CLIFailure) -> (Signer, graceDays: Int)? {
        let config = try load()
        let paths = keyFiles.isEmpty ? (config?.keyPaths ?? []) : keyFiles
        guard !paths.isEmpty else { return nil }
        guard paths.count <= Signer.maxKeys else { throw CLIFailure("at most \(Signer.maxKeys) signing keys", exitCode: 2) }
        var keys: [SigningKey] = []
        for path in paths {
            do { keys.append(try SigningKeyFile.loadPrivate(path)) } catch { throw CLIFailure(error.reason, exitCode: 2) }
        }
        return (Signer(keys: keys, ttlSeconds: config?.ttlSeconds ?? defaultTTLSeconds), config?.retiredGraceDays ?? 7)
    }

    /// keyids of the configured signing keys that load (for `keys list`).
    static func loadedKeyIDs() -> Set<String> {
        guard let config = try? load() else { return [] }
        return Set(config.keyPaths.compactMap { try? SigningKeyFile.loadPrivate($0).keyID })
    }
}
