import Testing
@testable import ModelCatalog

/// Device-class variants (SPEC §3.1): `requires` parsing, matching, the catalog form and the
/// store's add / remove / GC.
@Suite struct VariantTests {
    // MARK: requires

    @Test(arguments: [
        ("", "{}"),
        ("min_ram_mb=7000,platform=ios|ipados", #"{"platform":["ios","ipados"],"min_ram_mb":7000}"#),
        ("min_os=17.0, device_prefix=iPhone16|iPad", #"{"min_os":"17.0","device_prefix":["iPhone16","iPad"]}"#),
        (#"{"platform":["android"],"min_os":"14","min_ram_mb":0,"device_prefix":["Pixel 8"]}"#,
         #"{"platform":["android"],"min_os":"14","min_ram_mb":0,"device_prefix":["Pixel 8"]}"#),
    ])
    func requiresParses(text: String, json: String) throws {
        #expect(String(decoding: try VariantRequirements(parsing: text).json, as: UTF8.self) == json)
    }

    @Test(arguments: [
        ("colour=red", "requires.colour"),
        ("min_ram_mb=lots", "requires.min_ram_mb"),
        ("min_ram_mb=-1", "requires.min_ram_mb"),
        ("min_ram_mb=10000001", "requires.min_ram_mb"),
        ("min_os=17.x", "requires.min_os"),
        ("platform=iOS", "requires.platform"),
        ("platform=ios,platform=android", "requires.platform"),
        ("platform", "requires"),
        ("device_prefix=iPhone16,", "requires"),   // ',' separates pairs: such prefixes need the JSON form
        (#"{"platform":"ios"}"#, "requires.platform"),
        (#"{"min_ram":1}"#, "requires.min_ram"),
        (#"{"min_os":"1.2.3.4"}"#, "requires.min_os"),
        (#"{"device_prefix":[]}"#, "requires.device_prefix"),
        ("{", "requires"),
    ])
    func requiresRefusesNamingTheKey(text: String, parameter: String) {
        do {
            _ = try VariantRequirements(parsing: text)
            Issue.record("\(text) accepted")
        } catch {
            #expect(error.code == .invalidParameter && error.parameter == parameter, "\(text): \(error)")
        }
    }

    @Test func matching_missingAttributesNeverMatch_osComparesAsVersions() throws {
        let r = try VariantRequirements(parsing: #"{"platform":["ios"],"min_os":"17.2","min_ram_mb":7000,"device_prefix":["iPhone16,","iPhone17,"]}"#)
        let ok = DeviceAttributes(platform: "ios", os: SDKVersion("17.10"), ramMB: 7000, device: "iPhone16,2")
        #expect(r.matches(ok))
        var d = ok; d.ramMB = 6999; #expect(!r.matches(d))
        d = ok; d.os = SDKVersion("17.2.0"); #expect(r.matches(d))
        d = ok; d.os = SDKVersion("17.1.9"); #expect(!r.matches(d))
        d = ok; d.platform = "ipados"; #expect(!r.matches(d))
        d = ok; d.device = "iPhone15,3"; #expect(!r.matches(d))
        d = ok; d.device = nil; #expect(!r.matches(d))
        #expect(!r.matches(.none))
        #expect(throws: CatalogError.self) { try VariantRequest(name: "all", requires: "", ext: "bin") }
    }

    @Test(arguments: [
        (["platform": "iOS"], "platform"), (["os": "17."], "os"), (["ram_mb": "8GB"], "ram_mb"),
        (["ram_mb": "10000001"], "ram_mb"), (["ram_mb": "+5"], "ram_mb"), (["ram_mb": "08"], "ram_mb"), (["ram_mb": ""], "ram_mb"), (["device": ""], "device"),
        (["device": String(repeating: "x", count: 65)], "device"), (["device": "a\u{7}"], "device"),
    ])
    func deviceAttributesNameTheBadParameter(query: [String: String], parameter: String) {
        do {
            _ = try DeviceAttributes(parsing: query["platform"], os: query["os"], ramMB: query["ram_mb"], device: query["device"])
            Issue.record("\(query) accepted")
        } catch {
            #expect(error.parameter == parameter)
        }
    }

    // MARK: store

    func upload(_ s: CatalogStore, _ text: String) throws -> FinishedUpload {
        let w = try UploadWriter(modelsDirectory: s.directory, instance: "test")
        try w.write(Array(text.utf8))
        return try w.finish()
    }

    /// The code `addVariant` refuses with, nil when it accepts.
    func refusal(_ s: CatalogStore, _ id: String, _ name: String) throws -> CatalogError.Code? {
        let u = try upload(s, "x")
        do throws(CatalogError) {
            _ = try s.addVariant(u, to: id, try VariantRequest(name: name, requires: "platform=ios", ext: "bin"))
            return nil
        } catch {
            return error.code
        }
    }

    @Test func addRemoveCollect_roundTripsThroughCatalogJSON() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = CatalogStore(directory: dir.path + "/models", publicBaseURL: "https://cdn.example")
        let r = try s.publish(try upload(s, "base"), PublishRequest(sdkMin: "1", ext: "gguf"))
        let plain = try #require(dir.read("models/catalog.json"))
        #expect(!plain.contains("variants"), "a catalog without variants keeps its old form")

        let big = try s.addVariant(try upload(s, "8b"), to: r.id, try VariantRequest(name: "8gb", requires: "min_ram_mb=7000", ext: "gguf"))
        #expect(big.catalogVersion == r.catalogVersion + 1)
        let v = try #require(big.value.variants.first)
        #expect(v.fileID != r.id && dir.exists("models/\(v.file)") && v.size == 2)
        #expect(try s.load() == (try Catalog(decoding: Array(try #require(dir.read("models/catalog.json")).utf8))))
        #expect(try s.load().release(id: r.id)?.variants == [v])

        // A live name is taken; an unknown release is 404; a removed name is free again.
        #expect(try refusal(s, r.id, "8gb") == .idInUse)
        #expect(try refusal(s, Release.newID(), "x") == .notFound)
        #expect(FileIO.entries(of: s.tempDirectory).isEmpty, "refused uploads keep nothing")

        let t0 = Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        _ = try s.removeVariant(named: "8gb", from: r.id, now: t0)
        #expect(try s.load().release(id: r.id)?.variantIndex(for: DeviceAttributes(ramMB: 9000)) == nil)
        #expect(try s.collectGarbage(graceDays: 7, now: t0.adding(days: 6)).isEmpty)
        #expect(dir.exists("models/\(v.file)"), "served through the grace period")
        #expect(try s.collectGarbage(graceDays: 7, now: t0.adding(days: 7)).count == 1)
        #expect(!dir.exists("models/\(v.file)") && dir.exists("models/\(r.file)"))
        #expect(try s.load().release(id: r.id)?.variants.first?.fileDeletedAt == t0.adding(days: 7))
        _ = try s.addVariant(try upload(s, "8b-2"), to: r.id, try VariantRequest(name: "8gb", requires: "min_ram_mb=7000", ext: "gguf"))
    }

    @Test func retiredRelease_refusesVariants_andGCTakesThemWithIt() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = CatalogStore(directory: dir.path + "/models", publicBaseURL: "https://cdn.example")
        let r = try s.publish(try upload(s, "base"), PublishRequest(sdkMin: "1", ext: "gguf"))
        let v = try #require(try s.addVariant(try upload(s, "small"), to: r.id, try VariantRequest(name: "small", requires: "platform=ios", ext: "bin")).value.variants.first)
        let t0 = Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        _ = try s.retire(id: r.id, now: t0)
        #expect(try refusal(s, r.id, "x") == .retired)
        #expect(try s.collectGarbage(graceDays: 7, now: t0.adding(days: 7)).count == 1)
        #expect(!dir.exists("models/\(r.file)") && !dir.exists("models/\(v.file)"))
    }

    /// The variant's own file: `url`, `sha256`, `size` and its chunk list (SPEC §14).
    @Test func variantDocument_changesOnlyURLShaSize_andNamesTheVariant() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = CatalogStore(directory: dir.path + "/models", publicBaseURL: "https://cdn.example")
        let r = try s.publish(try upload(s, "base"), PublishRequest(sdkMin: "1", label: "fam", ext: "gguf"))
        let release = try s.addVariant(try upload(s, "123"), to: r.id, try VariantRequest(name: "small", requires: "platform=ios", ext: "gguf")).value
        let v = release.variants[0]
        let snap = CatalogSnapshot(catalog: try s.load(), publicBaseURL: "https://cdn.example")
        let a = try #require(snap.latest(sdk: SDKVersion("1")!, clientID: nil, device: DeviceAttributes(platform: "ios")))
        #expect(a.variant == v && a.key == CatalogSnapshot.DocumentKey(seq: release.seq, variant: 0))
        let text = String(decoding: snap.document(a), as: UTF8.self)
        #expect(text == #"{"url":"https://cdn.example/models/\#(v.file)","id":"\#(r.id)","sha256":"\#(v.sha256)","size":3,"chunks":{"url":"https://cdn.example/models/\#(v.file).chunks","sha256":"\#(v.chunks!.sha256)","size":60},"sdk_min":"1","channel":"stable","label":"fam","published_at":"\#(release.publishedAt.rfc3339)","variant":"small","disk_bytes":3}"#)
        #expect(snap.latest(sdk: SDKVersion("1")!, clientID: nil)?.variant == nil)
        #expect(!String(decoding: snap.latestDetails, as: UTF8.self).contains(v.file), "the static file holds default files only")
    }
}
