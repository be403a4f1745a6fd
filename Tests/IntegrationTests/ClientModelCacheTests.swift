import ChildProcesses
import Foundation
import ModeldClient
import Testing

/// SPEC §13.2's many models, one object: one `ModelCache` serves every channel of a cache (one
/// shared transport, a lock per channel), deletes and resets while other channels are in use,
/// and a second object for the same cache in the process is refused with a clear error.
@Suite(.serialized) final class ClientModelCacheTests {
    let fx: ClientFixture
    init() throws { fx = try ClientFixture() }

    func configuration() -> ModeldConfiguration {
        ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3", cacheDirectory: fx.cache).allowingUnsigned()
    }

    @Test func oneObject_servesEveryChannel_deletesAndResetsWhileOthersAreInUse_SPEC13_2() async throws {
        let ranker = try fx.publish(size: 30_000, channel: "ranker")
        let faces = try fx.publish(size: 20_000, channel: "faces")
        let models = try ModelCache(configuration())
        async let r = models.model(named: "ranker", policy: .latest)
        async let f = models.model(named: "faces", policy: .latest)
        let (rankerModel, facesModel) = try await (r, f)
        #expect(rankerModel?.id == ranker.id && facesModel?.id == faces.id)
        #expect(try await models.model(named: "faces", policy: .local)?.id == faces.id)

        // A second object for this cache, of either kind, is refused and says what to do.
        #expect { try ModelCache(self.configuration()) } throws: { error in
            guard case ModeldClientError.cacheInUse(let message) = error else { return false }
            return message.contains("one ModelCache serves every channel") && error.localizedDescription.contains("cache in use")
        }
        #expect(throws: ModeldClientError.self) { try ModelChannel(self.configuration()) }

        // Delete one model while the other is being used: the other stays installed and usable.
        let inUse = try await models.channel(named: "ranker")
        #expect(try await inUse.launchModel()?.id == ranker.id)
        try await models.delete(named: "faces")
        #expect(try await models.model(named: "faces", policy: .local) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fx.cache.appendingPathComponent("channels/faces/models").path).isEmpty)
        #expect(await inUse.activeModel()?.id == ranker.id)
        #expect(try await models.model(named: "faces", policy: .latest)?.id == faces.id)

        // Reset every channel while both are open through this object.
        try await models.resetCache()
        #expect(await inUse.activeModel() == nil)
        #expect(try await models.model(named: "faces", policy: .local) == nil)

        // Closed, the cache is free for a new object (and for another process's client).
        await models.close()
        #expect(try fx.client(["--channel", "ranker", "status"]).status == 0)
        let again = try ModelCache(configuration())
        #expect(try await again.model(named: "ranker", policy: .latest)?.id == ranker.id)
    }

    @Test func aLibraryConfigurationWithoutKeys_refusesUnsignedMetadata_unlessItSaysAllowUnsigned_SPEC13_2() throws {
        let plain = ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3", cacheDirectory: fx.cache)
        #expect { try ModelChannel(plain) } throws: { error in
            guard case ModeldClientError.invalidConfiguration(let message) = error else { return false }
            return message.contains("allowUnsigned") && error.localizedDescription == (error as? ModeldClientError)?.description
        }
        _ = try ModelChannel(configuration())
    }
}
