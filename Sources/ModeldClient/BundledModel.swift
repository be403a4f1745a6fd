import BinaryText
import Foundation

/// The model the app ships in its bundle (SPEC §13.1): it is the active model until a newer
/// one is installed, an answer naming its id installs nothing, and events about it carry its id.
public struct BundledModel: Sendable, Equatable {
    /// The id of the release the bundled file is (a UUID, as the server names releases).
    public var id: String
    /// Its SHA-256, 64 lowercase hex.
    public var sha256: String
    /// The file in the app bundle, if the app wants ``ModelChannel/activeModel()`` to name it.
    public var url: URL?

    public init(id: String, sha256: String, url: URL?) {
        self.id = id.lowercased()
        self.sha256 = sha256.lowercased()
        self.url = url
    }

    func validate() throws {
        guard UUID(uuidString: id) != nil else { throw ModeldClientError.invalidConfiguration("bundled model id '\(id)' is not a UUID") }
        guard Hex.isLowercase(sha256, bytes: 32) else {   // init lowercased it
            throw ModeldClientError.invalidConfiguration("bundled model sha256 must be 64 hex characters")
        }
    }

    /// The bundled model as the client reports an active model.
    func installed(channel: String, sdkVersion: String) -> InstalledModel {
        let size = url.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int64 } ?? 0  // unknown size reads 0: the file is the app's, not ours to check
        let release = ReleaseDocument(url: url?.absoluteString ?? "", id: id, sha256: sha256, size: size, sdkMin: sdkVersion,
                              sdkMax: nil, channel: channel, label: "bundled", publishedAt: nil, variant: nil)
        return InstalledModel(release: release, path: url ?? URL(fileURLWithPath: "/"), prepared: nil, isBundled: true)
    }
}
