import Testing
@testable import ModelCatalog

/// The catalog's base URL (SPEC §9.1, issue #10): recorded by the first change, used by every
/// writer, changed only by `setPublicBaseURL`.
@Suite struct CatalogBaseURLTests {
    func upload(_ store: CatalogStore, _ text: String) throws -> FinishedUpload {
        let w = try UploadWriter(modelsDirectory: store.directory, instance: "test")
        try w.write(Array(text.utf8))
        return try w.finish()
    }

    func derived(_ dir: TempDir) -> String { dir.read("models/latest_model_details.json") ?? "" }

    @Test func firstChangeRecordsTheBase_fallbackWritersAdoptIt() throws {
        let dir = TempDir(); defer { dir.remove() }
        let path = dir.path + "/models"
        let cdn = CatalogStore(directory: path, publicBaseURL: "https://cdn.example/m/")
        let a = try cdn.publish(try upload(cdn, "a"), PublishRequest(sdkMin: "1", ext: "onnx"))
        #expect(try cdn.load().publicBaseURL == "https://cdn.example/m", "recorded without the trailing /")
        #expect(a.publicBaseURL == "https://cdn.example/m")

        // modelctl without config, or a server without public_base_url: the catalog's base wins.
        let fallback = CatalogStore(directory: path, publicBaseURL: "http://127.0.0.1:8080", isFallbackBaseURL: true)
        let b = try fallback.publish(try upload(fallback, "b"), PublishRequest(sdkMin: "2", ext: "onnx"))
        #expect(String(decoding: b.adminJSON(), as: UTF8.self).contains("\"url\":\"https://cdn.example/m/models/\(b.file)\""))
        #expect(!derived(dir).contains("127.0.0.1") && derived(dir).contains("https://cdn.example/m/models/\(b.file)"))
        #expect(try cdn.load().publicBaseURL == "https://cdn.example/m")
    }

    @Test func configuredWriterWithAnotherBaseRefusesNamingBoth() throws {
        let dir = TempDir(); defer { dir.remove() }
        let path = dir.path + "/models"
        let first = CatalogStore(directory: path, publicBaseURL: "https://a.example")
        let r = try first.publish(try upload(first, "a"), PublishRequest(sdkMin: "1", ext: "onnx"))
        let catalogBefore = dir.read("models/catalog.json"), derivedBefore = derived(dir)
        let other = CatalogStore(directory: path, publicBaseURL: "https://b.example")
        for attempt in [{ _ = try other.patch(id: r.id, ReleasePatch(label: "x")) },
                        { _ = try other.publish(try upload(other, "b"), PublishRequest(sdkMin: "1", ext: "onnx")) }] {
            do { try attempt(); Issue.record("a second base was written") } catch let e as CatalogError {
                #expect(e.code == .baseURLMismatch && e.httpStatus == 409)
                #expect(e.message.contains("https://a.example") && e.message.contains("https://b.example"), "\(e.message)")
            }
        }
        #expect(dir.read("models/catalog.json") == catalogBefore && derived(dir) == derivedBefore)
        #expect(dir.entries("models/.tmp") == [], "the refused upload left nothing")
    }

    @Test func setPublicBaseURLIsTheDeliberateChange() throws {
        let dir = TempDir(); defer { dir.remove() }
        let path = dir.path + "/models"
        let old = CatalogStore(directory: path, publicBaseURL: "https://old.example")
        let r = try old.publish(try upload(old, "a"), PublishRequest(sdkMin: "1", ext: "onnx"))
        let change = try CatalogStore(directory: path, publicBaseURL: "https://new.example").setPublicBaseURL("https://new.example/")
        #expect(change.value == "https://old.example" && change.catalogVersion == 2)
        let catalog = try old.load()
        #expect(catalog.publicBaseURL == "https://new.example" && catalog.catalogVersion == 2)
        #expect(derived(dir) == String(decoding: catalog.latestDetailsJSON(publicBaseURL: "https://new.example"), as: UTF8.self))
        #expect(derived(dir).contains("https://new.example/models/\(r.file)"))
        // The same URL again changes nothing; the old writer is now the one refused.
        #expect(try old.setPublicBaseURL("https://new.example").catalogVersion == 2)
        #expect(throws: CatalogError.self) { try old.patch(id: r.id, ReleasePatch(label: "x")) }
        #expect(throws: CatalogError.self) { try old.setPublicBaseURL("ftp://x") }
    }

    @Test func legacyCatalogRecordsOnlyWithARealChange() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = CatalogStore(directory: dir.path + "/models", publicBaseURL: "https://cdn.example")
        #expect(try s.collectGarbage(graceDays: 7).isEmpty)
        #expect(!dir.exists("models/catalog.json"), "a no-op writes nothing, not even the base")
        #expect(try Catalog(decoding: Catalog(releases: [], publicBaseURL: "https://x.example").encoded()).publicBaseURL == "https://x.example")
        #expect(throws: CatalogError.self) { try Catalog(decoding: Array(#"{"format":1,"public_base_url":"x y","releases":[]}"#.utf8)) }
    }
}
