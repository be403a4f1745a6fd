import Foundation

/// Every model of one cache directory, for an app with several (SPEC §13.2): a model is a
/// channel, and one `ModelCache` per cache and process serves them all with one shared
/// transport and a lock per channel. A second object for the same cache in this process is
/// refused with ``ModeldClientError/cacheInUse(_:)``.
///
/// ```swift
/// let models = try ModelCache(ModeldConfiguration(
///     source: .server(URL(string: "https://models.example.com")!), sdkVersion: "2.3",
///     cacheDirectory: cacheURL, trustedKeys: [try TrustedPublicKey(pubFileContents: pub)]))
/// let ranker = try await models.model(named: "ranker", policy: .latest)
/// let faces = try await models.model(named: "faces", policy: .localThenUpdateInBackground)
/// ```
public actor ModelCache {
    /// The settings every channel opens with; `channel` is the one ``defaultChannel()`` opens, and
    /// `bundledModel` belongs to that channel only.
    public nonisolated let configuration: ModeldConfiguration
    let transports: ChannelTransports
    /// Verifies batched answers (SPEC §17.2), with the keys every channel trusts.
    let verifier: any MetadataVerifier
    private let registration: String
    private var channels: [String: ModelChannel] = [:]
    private var closed = false

    public init(_ configuration: ModeldConfiguration) throws {
        _ = try configuration.validate()
        verifier = try configuration.makeVerifier()
        registration = try OpenCaches.claim(configuration.cacheDirectory)
        do { transports = try ChannelTransports(configuration) } catch {
            OpenCaches.release(registration)
            throw error
        }
        self.configuration = configuration
    }

    deinit {
        guard !closed else { return }
        transports.invalidate()
        OpenCaches.release(registration)
    }

    /// The channel (model) `name`, opened at its first use: check, update, launch health and
    /// events of that model.
    public func channel(named name: String) throws -> ModelChannel {
        guard !closed else { throw ModeldClientError.refused("this ModelCache was closed; open a new one") }
        if let open = channels[name] { return open }
        var settings = configuration
        settings.channel = name
        if name != configuration.channel { settings.bundledModel = nil }
        let channel = try ModelChannel(settings, transports: transports, registration: nil)
        channels[name] = channel
        return channel
    }

    /// The configuration's own channel.
    public func defaultChannel() throws -> ModelChannel { try channel(named: configuration.channel) }

    /// The model `name` under `policy` (Firebase's `getModel(name:downloadType:conditions:)`);
    /// nil: none installed (the bundled one, if any, is the default channel's).
    public func model(named name: String, policy: ModelPolicy,
                      progress: (@Sendable (UpdatePhase) -> Void)? = nil) async throws -> InstalledModel? {
        try await channel(named: name).model(policy: policy, progress: progress)
    }

    /// Deletes every installed model and partial download of `name` (Firebase's
    /// `deleteDownloadedModel(name:)`); its client id, blocked ids, catalog and events stay.
    /// The other channels go on working meanwhile.
    public func delete(named name: String) async throws {
        try await channel(named: name).resetChannel()
    }

    /// ``delete(named:)`` for every channel of the cache, including those in use through this
    /// object. Refused only for a channel another process holds.
    public func resetCache() async throws {
        for name in try CacheDirectory(root: configuration.cacheDirectory).channelNames() {
            try await delete(named: name)
        }
    }

    /// Closes every channel (a clean end of their launches) and releases the cache for a new object.
    public func close() async {
        guard !closed else { return }
        closed = true
        for channel in channels.values { await channel.close() }
        channels = [:]
        transports.invalidate()
        OpenCaches.release(registration)
    }
}
