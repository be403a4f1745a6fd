import ArgumentParser
import Foundation
import struct ModeldConfig.Configuration
import struct ModeldConfig.ConfigurationError

/// `./config/modeld.json`, read by modeld's own loader (SPEC §7: modelctl's defaults — token file,
/// public base URL — come from the shipped config): the same keys, validation and path rules
/// (relative paths are relative to the working directory, for both programs). Only the file
/// layer: modelctl does not take the server's `MODELD_*` environment.
enum ShippedConfig {
    static let path = Configuration.defaultConfigPath

    /// nil when there is no such file; a file modeld would refuse is an error naming it.
    static func load() throws(CLIFailure) -> Configuration? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do throws(ConfigurationError) {
            guard case .run(let config) = try Configuration.load(arguments: ["--config", path], environment: [:]) else { return nil }
            return config
        } catch {
            throw CLIFailure("cannot use \(path): \(error.description)")
        }
    }
}

extension ShippedConfig {
    /// A base URL checked and normalised by modeld's own `public_base_url` rule (http(s), a host,
    /// no query/fragment/spaces, trailing `/` dropped), so modelctl accepts exactly what modeld does.
    static func validatedBaseURL(_ url: String, flag: String) throws -> String {
        let outcome: Configuration.LoadOutcome
        do throws(ConfigurationError) {
            outcome = try Configuration.load(arguments: ["--public-base-url", url], environment: [:], readFile: { _ in nil }, hostName: "modelctl")
        } catch {
            throw ValidationError("\(flag): \(error.reason)")
        }
        guard case .run(let config) = outcome, let normalised = config.publicBaseURL else { throw ValidationError("\(flag) must be a URL") }
        return normalised
    }
}
