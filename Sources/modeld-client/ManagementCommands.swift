import ArgumentParser
import Foundation
import ModeldClient

/// The app's bundled model (SPEC §13.1); the device attributes are ``DeviceOptions``.
struct AppOptions: ParsableArguments {
    @Option(help: "Id of the model the app bundles (a release UUID): active until a newer one installs.")
    var bundledId: String?
    @Option(help: "SHA-256 of the bundled model.")
    var bundledSha256: String?

    func validate() throws {
        guard (bundledId == nil) == (bundledSha256 == nil) else { throw ValidationError("--bundled-id and --bundled-sha256 go together") }
    }

    func apply(to configuration: inout ModeldConfiguration) {
        if let bundledId, let bundledSha256 { configuration.bundledModel = BundledModel(id: bundledId, sha256: bundledSha256, url: nil) }
    }
}

struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "models", abstract: "List the models of every channel in the cache.")
    @ParentCommand var root: ModeldClientCommand

    func run() async throws {
        try await root.withClient { client in
            let models = try await client.installedModels()
            if root.json {
                let list: [[String: Any]] = models.map { m in
                    ["channel": m.channel, "id": m.id, "sha256": m.sha256.map { $0 as Any } ?? NSNull(),
                     "size": m.size.map { $0 as Any } ?? NSNull(), "path": m.path.map { $0.path as Any } ?? NSNull(),
                     "active": m.active, "blocked": m.blocked]
                }
                let data = try JSONSerialization.data(withJSONObject: list, options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            if models.isEmpty { print("no models in the cache") }
            for m in models {
                let flags = [m.active ? "active" : nil, m.blocked ? "blocked" : nil].compactMap { $0 }.joined(separator: ",")
                print("\(m.channel)\t\(m.id)\t\(m.size.map(String.init) ?? "-")\t\(flags.isEmpty ? "-" : flags)\t\(m.path?.path ?? "-")")
            }
            print("\(await client.bytesUsed()) bytes used")
        }
    }
}

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an installed model that is not active.")
    @ParentCommand var root: ModeldClientCommand
    @Argument(help: "The model id.") var id: String

    func run() async throws {
        try await root.withClient { client in
            try await client.delete(id.lowercased())
            print("deleted \(id)")
        }
    }
}

struct UnblockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Allow a blocked model id to be installed again.")
    @ParentCommand var root: ModeldClientCommand
    @Argument(help: "The model id.") var id: String

    func run() async throws {
        try await root.withClient { client in
            try await client.unblock(id.lowercased())
            print("unblocked \(id)")
        }
    }
}
