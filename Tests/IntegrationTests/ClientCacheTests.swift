import ChildProcesses
import Foundation
import ModeldClient
import Testing

/// SPEC §13.1 through `ModelChannel` and the real `modeld-client` against the real modeld:
/// several channels in one cache and its management, the layout migration, bundled model
/// identity, device attributes, zipped models, the rollback rule and a state file that cannot
/// be read.
@Suite(.serialized) final class ClientCacheTests {
    let fx: ClientFixture
    init() throws { fx = try ClientFixture() }

    func configuration(channel: String = "stable") -> ModeldConfiguration {
        ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3", cacheDirectory: fx.cache, channel: channel)
            .allowingUnsigned()
    }

    func channelDirectory(_ channel: String = "stable", cache: URL? = nil) -> URL {
        (cache ?? fx.cache).appendingPathComponent("channels").appendingPathComponent(channel)
    }

    func modelsList(channel: String = "stable") throws -> [String: [String: Any]] {
        let r = try fx.client(["--channel", channel, "--json", "models"])
        try #require(r.status == 0, "\(r.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(r.stdout)")
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0) })
    }

    func active(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try fx.json(result)["active"] as? [String: Any], "\(result.stdout) \(result.stderr)")
    }

    /// A zip written by Python's zipfile; `entries` maps names to contents.
    func makeZip(_ entries: [(String, Data)]) throws -> URL {
        let zip = fx.scratch.appendingPathComponent("\(UUID().uuidString.prefix(8)).zip")
        let parts = fx.scratch.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        var script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n"
        for (i, (name, data)) in entries.enumerated() {
            try data.write(to: parts.appendingPathComponent("\(i)"))
            script += "z.writestr(\(pythonString(name)), open(\(pythonString(parts.appendingPathComponent("\(i)").path)), 'rb').read())\n"
        }
        script += "z.close()\n"
        let r = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, zip.path])
        try #require(r.status == 0, "\(r.stderr)")
        return zip
    }

    private func pythonString(_ s: String) -> String { "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'" }

    func randomData(_ count: Int) throws -> Data {
        try #require(FileHandle(forReadingAtPath: "/dev/urandom")).read(upToCount: count) ?? Data()
    }

    // MARK: Several channels

    @Test func twoChannels_shareOneCache_withTheirOwnStateAndLocks_andOneIdentity_SPEC13_1() async throws {
        let stable = try fx.publish(size: 10_000)
        let faces = try fx.publish(size: 20_000, channel: "faces")
        let cache = try ModelCache(configuration())
        let a = try await cache.channel(named: "stable")
        let b = try await cache.channel(named: "faces")
        async let updateA = a.update()
        async let updateB = b.update()
        let (ra, rb) = try await (updateA, updateB)
        #expect(ra.active?.id == stable.id && rb.active?.id == faces.id)
        #expect(try SHA256Sum.of(try #require(rb.active?.path)) == faces.sha256)
        #expect(await a.clientID == (await b.clientID))
        #expect(try await cache.channel(named: "faces") === b)

        // Another process: the open channel is refused, a third one works and lists both.
        let busy = try fx.client(["--channel", "faces", "status"])
        #expect(busy.status == 1 && busy.stderr.contains("cache in use"), "\(busy.stderr)")
        let models = try modelsList(channel: "other")
        #expect(models.count == 2)
        #expect(models[stable.id]?["channel"] as? String == "stable" && models[faces.id]?["channel"] as? String == "faces")
        #expect(models[faces.id]?["active"] as? Bool == true && models[faces.id]?["blocked"] as? Bool == false)
        #expect(models[faces.id]?["sha256"] as? String == faces.sha256 && models[faces.id]?["size"] as? Int == 20_000)
        #expect(models[faces.id]?["path"] as? String == rb.active?.path.path)
        let listed = try await a.installedModels()
        #expect(listed.map(\.channel) == ["faces", "stable"])
        #expect(await a.bytesUsed() >= 30_000)
    }

    @Test func models_delete_unblock_throughTheCLI_SPEC13_1() async throws {
        let first = try fx.publish(size: 10_000)
        #expect(try fx.client(["update"]).status == 0)
        let second = try fx.publish(size: 20_000)
        #expect(try fx.client(["update"]).status == 0)
        var models = try modelsList()
        #expect(models[first.id]?["active"] as? Bool == false && models[second.id]?["active"] as? Bool == true)
        let text = try fx.client(["models"])
        #expect(text.status == 0 && text.stdout.contains(first.id) && text.stdout.contains("bytes used"))

        let refused = try fx.client(["delete", second.id])
        #expect(refused.status == 1 && refused.stderr.contains("active"), "\(refused.stderr)")
        #expect(try fx.client(["delete", first.id]).status == 0)
        models = try modelsList()
        #expect(models.keys.sorted() == [second.id])
        #expect(!FileManager.default.fileExists(atPath: channelDirectory().appendingPathComponent("models/\(first.id)").path))
        #expect(try fx.client(["delete", first.id]).status == 1)

        // Blocked by the app, listed as blocked, not offered; unblocked, it installs again.
        var client: ModelChannel? = try ModelChannel(configuration())
        #expect(try await client!.reportBad(second.id, reason: "accuracy") == nil)
        client = nil
        models = try modelsList()
        #expect(models[second.id]?["blocked"] as? Bool == true && models[second.id]?["path"] is NSNull)
        let blocked = try fx.json(try fx.client(["--json", "update"]))
        #expect(blocked["state"] as? String == "up_to_date" && blocked["active"] is NSNull)
        #expect(try fx.client(["unblock", second.id]).status == 0)
        #expect(try fx.client(["unblock", second.id]).status == 1)
        let again = try fx.client(["--json", "update"])
        #expect(try fx.json(again)["state"] as? String == "updated" && (try active(again))["id"] as? String == second.id)
    }

    @Test func resetCache_dropsEveryChannelsModels_keepingIdentityAndCatalog_SPEC13_1() async throws {
        _ = try fx.publish(size: 10_000)
        _ = try fx.publish(size: 10_000, channel: "faces")
        #expect(try fx.client(["update"]).status == 0)
        #expect(try fx.client(["--channel", "faces", "update"]).status == 0)
        let client = try ModelChannel(configuration())
        let id = await client.clientID
        let before = await client.bytesUsed()
        try await client.resetCache()
        #expect(try await client.installedModels().isEmpty)
        #expect(await client.activeModel() == nil)
        #expect(await client.bytesUsed() < before - 20_000)
        #expect(await client.clientID == id)
    }

    // MARK: Migration

    @Test func aSingleChannelCache_isMigratedInPlace_keepingTheModelClientIdAndCatalog_SPEC13_1() throws {
        let beta = try fx.publish(size: 10_000, channel: "beta")
        #expect(try fx.client(["--channel", "beta", "update"]).status == 0)
        // Rebuild the v3 layout: the channel's files at the root, no identity, and v3's launch
        // counter at a value that rolled back under the old rule.
        let fm = FileManager.default
        let channel = channelDirectory("beta")
        for name in ["models", "partial", "events", "state.json"] {
            try fm.moveItem(at: channel.appendingPathComponent(name), to: fx.cache.appendingPathComponent(name))
        }
        try fm.removeItem(at: fx.cache.appendingPathComponent("channels"))
        try fm.removeItem(at: fx.cache.appendingPathComponent("identity.json"))
        let stateURL = fx.cache.appendingPathComponent("state.json")
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: stateURL)) as? [String: Any])
        state["client_id"] = "legacy-client-7"
        state["highest_catalog"] = 7
        state["activations"] = 5
        state["unconfirmed_launches"] = nil
        state["active_is_good"] = false
        try JSONSerialization.data(withJSONObject: state).write(to: stateURL)

        // A client of another channel opens it first: the state still goes to beta, its model's channel.
        let other = try fx.json(try fx.client(["--json", "status"]))
        #expect(other["active"] is NSNull)
        let status = try fx.client(["--channel", "beta", "--json", "status"])
        let model = try active(status)
        #expect(model["id"] as? String == beta.id)
        #expect(try fx.json(status)["catalog"] as? Int == 7)
        let path = try #require(model["path"] as? String)
        #expect(path.hasPrefix(channel.path))
        #expect(try SHA256Sum.of(URL(fileURLWithPath: path)) == beta.sha256)
        #expect(!fm.fileExists(atPath: stateURL.path) && !fm.fileExists(atPath: fx.cache.appendingPathComponent("models").path))

        let seen = fx.latestRequests.count
        #expect(try fx.client(["--channel", "beta", "check"]).status == 0)
        #expect(fx.latestRequests.dropFirst(seen).first?.target.contains("client_id=legacy-client-7") == true)
        #expect(fx.latestRequests.count == seen + 1)
        // The other channel's first state took the same identity.
        #expect(try fx.client(["check"]).status == 0)
        #expect(fx.latestRequests.last?.target.contains("client_id=legacy-client-7") == true)
    }

    // MARK: state.json that cannot be read (issue 19 item 5)

    @Test(arguments: ["truncated", "garbage"])
    func aCorruptStateFile_isAnError_andNothingChanges_SPEC13_1(kind: String) throws {
        _ = try fx.publish(size: 10_000)
        #expect(try fx.client(["update"]).status == 0)
        let stateURL = channelDirectory().appendingPathComponent("state.json")
        let good = try Data(contentsOf: stateURL)
        let bad = kind == "truncated" ? good.prefix(good.count / 2) : Data("\u{1}not json at all".utf8)
        try bad.write(to: stateURL)
        let seen = fx.latestRequests.count
        for command in [["status"], ["update"], ["models"]] {
            let r = try fx.client(command)
            #expect(r.status == 1 && r.stderr.contains("not a client state file"), "\(command): \(r.stderr)")
        }
        #expect(try Data(contentsOf: stateURL) == bad)
        #expect(fx.latestRequests.count == seen)
    }

    @Test func aMissingStateFile_isAFirstStart_thatKeepsTheInstallIdentity_SPEC13_1() throws {
        _ = try fx.publish(size: 10_000)
        #expect(try fx.client(["update"]).status == 0)
        let id = try #require(fx.latestRequests.last?.target.components(separatedBy: "client_id=").last?.components(separatedBy: "&").first)
        try FileManager.default.removeItem(at: channelDirectory().appendingPathComponent("state.json"))
        let r = try fx.client(["--json", "update"])
        #expect(r.status == 0)
        #expect(try active(r)["id"] != nil)
        #expect(fx.latestRequests.last?.target.contains("client_id=\(id)") == true)
    }

    /// A real EACCES: the cache belongs to `nobody`, its state.json is mode 000, and
    /// `modeld-client` runs as `nobody` (setpriv), for whom root's override does not apply.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func anUnreadableStateFile_EACCES_isAnError_andNothingChanges_SPEC13_1() throws {
        _ = try fx.publish(size: 10_000)
        let cache = fx.scratch.appendingPathComponent("nobody-cache")
        #expect(try fx.client(["update"], cache: cache).status == 0)
        let stateURL = channelDirectory(cache: cache).appendingPathComponent("state.json")
        let good = try Data(contentsOf: stateURL)
        #expect(try ChildProcess.run(URL(fileURLWithPath: "/bin/chown"), ["-R", "65534:65534", cache.path]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: stateURL.path)
        let seen = fx.latestRequests.count
        let r = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                     ["--reuid=65534", "--regid=65534", "--clear-groups", "--", TestBinaries.modeldClient.path]
                                         + fx.clientArguments(["update"], cache: cache))
        #expect(r.status == 1 && r.stderr.contains("cannot read") && r.stderr.contains("Permission denied"), "\(r.status) \(r.stderr)")
        #expect(try Data(contentsOf: stateURL) == good)
        #expect((try FileManager.default.attributesOfItem(atPath: stateURL.path)[.posixPermissions] as? Int) == 0)
        #expect(fx.latestRequests.count == seen)
    }

    // MARK: Bundled model and device attributes

    @Test func theBundledModel_isActiveUntilANewerOneInstalls_andItsEventsCarryItsId_SPEC13_1() throws {
        let shipped = try fx.publish(size: 10_000)
        let app = ["--bundled-id", shipped.id, "--bundled-sha256", shipped.sha256]
        let status = try fx.client(app + ["--json", "status"])
        #expect(try active(status)["id"] as? String == shipped.id && (try active(status))["bundled"] as? Bool == true)
        let first = try fx.client(app + ["--json", "update"])
        #expect(try fx.json(first)["state"] as? String == "up_to_date" && (try active(first))["id"] as? String == shipped.id, "\(first.stderr)")
        #expect(fx.modelRequests(shipped.id).isEmpty)
        #expect(try fx.client(app + ["record", "--name", "bundled_used", "--outcome", "ok"]).status == 0)
        #expect(try fx.client(app + ["flush"]).status == 0)
        let export = try ChildProcess.run(TestBinaries.modelctl, ["events", "export", "--data-dir", fx.server.dataDir.path])
        let used = export.stdout.split(separator: "\n").first { $0.contains("bundled_used") }
        #expect(used?.contains("\"model_id\":\"\(shipped.id)\"") == true, "\(export.stdout)")

        let newer = try fx.publish(size: 20_000)
        let updated = try fx.client(app + ["--json", "update"])
        #expect(try fx.json(updated)["state"] as? String == "updated" && (try active(updated))["id"] as? String == newer.id)
        // The operator goes back to the bundled release: it becomes active again, downloaded never.
        let pause = try ChildProcess.run(TestBinaries.modelctl, ["pause", newer.id, "--server", fx.server.url, "--token", fx.server.token])
        #expect(pause.status == 0, "\(pause.stderr)")
        let back = try fx.client(app + ["--json", "update"])
        #expect(try active(back)["id"] as? String == shipped.id && (try active(back))["bundled"] as? Bool == true, "\(back.stdout)")
        #expect(fx.modelRequests(shipped.id).isEmpty)
        #expect(try fx.client(["--bundled-id", "nope", "--bundled-sha256", shipped.sha256, "status"]).status == 2)
    }

    @Test func deviceAttributes_readFromTheOS_reachTheServer_soAVariantNeedsNoAppCode_SPEC13_1() throws {
        let base = try fx.publish(size: 10_000)
        let variantFile = fx.scratch.appendingPathComponent("linux.bin")
        try randomData(12_000).write(to: variantFile)
        let added = try ChildProcess.run(TestBinaries.modelctl, ["variant", "add", base.id, variantFile.path, "--name", "linux",
                                                                 "--requires", "platform=linux,min_ram_mb=1", "--json",
                                                                 "--server", fx.server.url, "--token", fx.server.token])
        try #require(added.status == 0, "\(added.stderr)")
        let release = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        let variant = try #require((release["variants"] as? [[String: Any]])?.first)

        let r = try fx.client(["--json", "update"])
        #expect(try active(r)["sha256"] as? String == variant["sha256"] as? String, "\(r.stdout) \(r.stderr)")
        let query = try #require(fx.latestRequests.last?.target)
        for name in ["platform=linux", "os=", "ram_mb=", "device="] { #expect(query.contains(name), "\(query)") }

        let other = fx.scratch.appendingPathComponent("ios-cache")
        let ios = try fx.client(["--platform", "ios", "--os", "17.2", "--ram-mb", "8000", "--device", "iPhone16,2", "--json", "update"], cache: other)
        #expect(try active(ios)["sha256"] as? String == base.sha256)
        #expect(fx.latestRequests.last?.target.contains("device=iPhone16,2") == true)
        #expect(try fx.client(["--platform", "iOS", "status"], cache: other).status == 2)
    }

    // MARK: Zipped models

    @Test func aZippedModel_isUnpackedAfterVerification_andItsPreparedPathIsShown_SPEC13_1() throws {
        let weights = try randomData(300_000)
        let manifest = Data(#"{"fileFormatVersion":"1.0.0"}"#.utf8)
        let zip = try makeZip([("model.mlpackage/Manifest.json", manifest), ("model.mlpackage/Data/weights.bin", weights)])
        let published = try fx.publish(file: zip)
        let r = try fx.client(["--json", "update"])
        #expect(r.status == 0, "\(r.stderr)")
        let status = try active(try fx.client(["--json", "status"]))
        let prepared = try #require(status["prepared"] as? String, "\(status)")
        #expect(prepared == channelDirectory().appendingPathComponent("models/\(published.id)/model").path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: prepared + "/model.mlpackage/Data/weights.bin")) == weights)
        #expect(try Data(contentsOf: URL(fileURLWithPath: prepared + "/model.mlpackage/Manifest.json")) == manifest)
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(status["path"] as? String))) == published.sha256)
    }

    @Test func sigkillMidUnpack_leavesThePreviousModelActive_andTheNextRunFinishes_SPEC13_1() throws {
        let first = try fx.publish(size: 10_000)
        #expect(try fx.client(["update"]).status == 0)
        let zip = try makeZip(try (0..<4).map { ("part\($0).bin", try randomData(100_000)) })  // random: within the 20× limit
        let zipped = try fx.publish(file: zip)
        let crashed = try ChildProcess.run(TestBinaries.modeldClient, fx.clientArguments(["update"]), environment: ["MODELD_CLIENT_CRASH_AT": "unpacking"])
        try #require(crashed.status == -SIGKILL, "\(crashed.status) \(crashed.stderr)")
        let models = channelDirectory().appendingPathComponent("models")
        // The kill came mid-unpack: a staging directory holds some of the files, not all.
        let staging = try FileManager.default.contentsOfDirectory(atPath: models.path).filter { $0.hasPrefix(".\(zipped.id)") }
        try #require(staging.count == 1)
        let unpacked = try FileManager.default.contentsOfDirectory(atPath: models.appendingPathComponent(staging[0]).appendingPathComponent("model").path)
        #expect(!unpacked.isEmpty && unpacked.count < 4, "\(unpacked)")

        let status = try active(try fx.client(["--json", "status"]))
        #expect(status["id"] as? String == first.id && status["prepared"] is NSNull)
        let next = try fx.client(["--json", "update"])
        #expect(try active(next)["id"] as? String == zipped.id, "\(next.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: models.path).sorted() == [first.id, zipped.id].sorted())
        let prepared = try #require((try active(next))["prepared"] as? String)
        #expect(try FileManager.default.contentsOfDirectory(atPath: prepared).sorted() == (0..<4).map { "part\($0).bin" })
    }

    @Test func anUnsafeArchive_isRefused_blocked_andWritesNothingOutside_SPEC13_1() throws {
        let first = try fx.publish(size: 10_000)
        #expect(try fx.client(["update"]).status == 0)
        let zip = try makeZip([("ok.bin", Data([1, 2, 3])), ("../../escape.txt", Data("pwned".utf8))])
        let evil = try fx.publish(file: zip)
        let r = try fx.client(["update"])
        #expect(r.status == 1 && r.stderr.contains("unsafe entry path"), "\(r.stderr)")
        let status = try active(try fx.client(["--json", "status"]))
        #expect(status["id"] as? String == first.id)
        let everything = FileManager.default.enumerator(atPath: fx.scratch.path)?.allObjects as? [String] ?? []
        #expect(!everything.contains { $0.hasSuffix("escape.txt") })
        #expect(try modelsList()[evil.id]?["blocked"] as? Bool == true)
        let fetched = fx.modelRequests(evil.id).count
        let again = try fx.json(try fx.client(["--json", "update"]))
        #expect(again["state"] as? String == "up_to_date")
        #expect(fx.modelRequests(evil.id).count == fetched)
    }

    // MARK: Rollback rule

    /// docs/client.md "Rollback rule": launches that end without markGood, background or a clean
    /// end, in a row, roll back; a model installed and never used, or launched and closed, stays.
    @Test func anUnusedModel_isNeverBlocked_andOnlyCrashedLaunchesInARowRollBack_SPEC13_2() async throws {
        let first = try fx.publish(size: 10_000)
        var client: ModelChannel? = try ModelChannel(configuration())
        #expect(try await client!.update().active?.id == first.id)
        try await client!.markGood(first.id)
        let second = try fx.publish(size: 20_000)
        #expect(try await client!.update().active?.id == second.id)

        // Installed, never launched: any number of starts keep it.
        for _ in 0..<3 {
            await client!.close()
            client = try ModelChannel(configuration())
            #expect(await client!.activeModel()?.id == second.id)
        }
        // Launched and closed (or released) cleanly, never marked good: kept.
        for _ in 0..<3 {
            await client!.close()
            client = try ModelChannel(configuration())
            #expect(try await client!.launchModel()?.id == second.id)
            #expect(fx.unconfirmedLaunches() == 1)
        }
        await client!.close()
        #expect(fx.unconfirmedLaunches() == 0)
        client = try ModelChannel(configuration())
        #expect(await client!.activeModel()?.id == second.id)
        client = nil  // released: a clean end too

        // Two app processes that load the model and are SIGKILLed: rolled back, blocked.
        for launches in 1...2 {
            let app = try fx.launchedApp(counted: launches)
            app.signal(SIGKILL)
            _ = try app.wait(timeout: .seconds(10))
        }
        #expect(fx.unconfirmedLaunches() == 2)
        client = try ModelChannel(configuration())
        #expect(await client!.activeModel()?.id == first.id)
        #expect(try await client!.check().status == .upToDate)
        try await client!.unblock(second.id)
        #expect(try await client!.check().status == .available)
        #expect(try await client!.update().active?.id == second.id)
    }

    /// An app process stopped by SIGTERM ends its launch cleanly: healthy, however often.
    @Test func launchesThatEndCleanly_neverRollBack_throughTheCLI_SPEC13_2() throws {
        let published = try fx.publish(size: 10_000)
        #expect(try fx.client(["update"]).status == 0)
        for _ in 0..<3 {
            let app = try fx.launchedApp(counted: 1)
            app.signal(SIGTERM)
            #expect(try app.wait(timeout: .seconds(10)).status == 0)
            #expect(fx.unconfirmedLaunches() == 0)
        }
        let launch = try fx.client(["--json", "launch"])
        #expect(launch.status == 0, "\(launch.stderr)")
        #expect(try active(launch)["id"] as? String == published.id)
    }
}
