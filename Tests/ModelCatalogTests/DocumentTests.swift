import JSONSupport
import Testing
@testable import ModelCatalog

@Suite struct DocumentTests {
    @Test func document_fieldOrderAndURL_SPEC4_1() throws {
        let r = try Release(
            id: "80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", seq: 12, ext: "mlmodel", sha256: sha, size: 1_048_576,
            sdkMin: "2.3", sdkMax: "3.0", label: "v12", publishedAt: t0)
        let json = String(decoding: r.documentJSON(publicBaseURL: "https://models.example.com/"), as: UTF8.self)
        #expect(json == #"{"url":"https://models.example.com/models/80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e.mlmodel","#
            + #""id":"80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e","sha256":"\#(sha)","size":1048576,"#
            + #""sdk_min":"2.3","sdk_max":"3.0","channel":"stable","label":"v12","published_at":"2026-11-21T10:00:00.000Z","#
            + #""disk_bytes":1048576}"#)
    }

    @Test func document_omitsUnsetSDKMax_SPEC3() {
        let json = String(decoding: rel(1).documentJSON(publicBaseURL: "http://h"), as: UTF8.self)
        #expect(!json.contains("sdk_max"))
        #expect(!String(decoding: rel(1).adminJSON(publicBaseURL: nil), as: UTF8.self).contains("sdk_max"))
    }

    @Test func document_sizeOver4GiB_SPEC3() throws {
        let r = try Release(id: rel(1).id, seq: 1, ext: "gguf", sha256: sha, size: 70_000_000_000, sdkMin: "1", publishedAt: t0)
        #expect(String(decoding: r.documentJSON(publicBaseURL: "http://h"), as: UTF8.self).contains(#""size":70000000000"#))
    }

    @Test(arguments: [
        ("plain", #""plain""#), ("q\"b\\s/", #""q\"b\\s/""#), ("\n\r\t\u{8}\u{c}", #""\n\r\t\b\f""#),
        ("\u{1}\u{1f}", #""\u0001\u001f""#), ("émoji 🚀", "\"émoji 🚀\""),
    ])
    func jsonWriter_escapesStrings_RFC8259(input: String, output: String) {
        var w = JSONWriter()
        w.string(input)
        #expect(w.string == output)
    }

    @Test func jsonWriter_nesting() {
        var w = JSONWriter()
        w.beginObject(); w.field("a", 1); w.key("b"); w.beginArray(); w.int(1); w.null(); w.bool(true); w.endArray()
        w.key("c"); w.beginObject(); w.endObject(); w.endObject()
        #expect(w.string == #"{"a":1,"b":[1,null,true],"c":{}}"#)
    }

    @Test func adminJSON_allFields_SPEC3() throws {
        var r = rel(7, max: "9", label: "l")
        r.retiredAt = t0
        r.fileDeletedAt = t0.adding(days: 7)
        let json = String(decoding: r.adminJSON(publicBaseURL: "http://h"), as: UTF8.self)
        #expect(json == #"{"url":"http://h/models/\#(r.id).onnx","id":"\#(r.id)","seq":7,"file":"\#(r.id).onnx","ext":"onnx","#
            + #""sha256":"\#(sha)","size":700,"sdk_min":"1.0","sdk_max":"9","channel":"stable","rollout_percent":100,"#
            + #""state":"active","label":"l","published_at":"2026-11-28T10:00:00.000Z","retired_at":"2026-11-21T10:00:00.000Z","#
            + #""file_deleted_at":"2026-11-28T10:00:00.000Z","content_type":"application/octet-stream"}"#)
    }

    // MARK: derived file (SPEC §2)

    func details(_ releases: [Release]) throws -> String {
        String(decoding: try Catalog(releases: releases).latestDetailsJSON(publicBaseURL: "http://h"), as: UTF8.self)
    }

    func doc(_ r: Release) -> String { String(decoding: r.documentJSON(publicBaseURL: "http://h"), as: UTF8.self) }

    @Test func latestDetails_keysAtEveryBoundary_SPEC2() throws {
        let a = rel(1, min: "1.0", max: "2.0")
        let b = rel(2, min: "1.5")
        let c = rel(3, min: "3", max: "4.1")
        #expect(try details([a, b, c]) == "{\"1.0.0\":\(doc(a)),\"1.5.0\":\(doc(b)),\"2.0.0\":\(doc(b)),\"3.0.0\":\(doc(c)),\"4.1.0\":\(doc(b))}\n")
    }

    @Test func latestDetails_nullWhereNoneEligible_SPEC2() throws {
        let a = rel(1, min: "1", max: "2")
        #expect(try details([a]) == "{\"1.0.0\":\(doc(a)),\"2.0.0\":null}\n")
    }

    @Test func latestDetails_ignoresPartialPausedAndOtherChannelsForKeys_SPEC2() throws {
        let a = rel(1, min: "1")
        let partial = rel(2, min: "1.2", percent: 50)
        let beta = rel(3, min: "1.3", channel: "beta")
        let paused = rel(4, min: "1.4", state: .paused)
        #expect(try details([a, partial, beta, paused]) == "{\"1.0.0\":\(doc(a))}\n")
        #expect(try details([]) == "{}\n")
    }

    @Test func latestDetails_valueIsSelectionWithAllReleases_SPEC2() throws {
        // A later paused or partial release at the same key must not shadow the 100 % one;
        // a higher-seq 100 % release with a lower sdk_min does win at a later key.
        let a = rel(1, min: "2")
        let b = rel(2, min: "1")
        #expect(try details([a, b]) == "{\"1.0.0\":\(doc(b)),\"2.0.0\":\(doc(b))}\n")
    }

    // MARK: values

    @Test(arguments: [
        ("mlmodelc.zip", "application/zip"), ("zip", "application/zip"), ("json", "application/json"),
        ("onnx", "application/octet-stream"), ("gguf", "application/octet-stream"), ("tflite", "application/octet-stream"),
        ("mlmodel", "application/octet-stream"),
    ])
    func contentType_defaultsByExt_SPEC3(ext: String, type: String) {
        #expect(Release.defaultContentType(forExt: ext) == type)
    }

    @Test(arguments: [("model.mlmodelc.zip", "mlmodelc.zip"), ("dir/M.ONNX", "onnx"), ("a.b.c", "b.c")])
    func ext_fromFileName_SPEC3(name: String, ext: String) {
        #expect(Release.ext(fromFileName: name) == ext)
    }

    @Test(arguments: ["noext", "a.", "a..b", "a.b_c", "a.0123456789abcdefg"])
    func ext_fromFileNameRejects_SPEC3(name: String) {
        #expect(Release.ext(fromFileName: name) == nil)
    }

    @Test(arguments: [
        ("ext", "ONNX"), ("ext", "a..b"), ("ext", ".a"), ("ext", "a/b"), ("ext", "abcdefghijklmnopq"),
        ("channel", ""), ("channel", "Stable"), ("channel", String(repeating: "a", count: 33)),
        ("sdk_min", "1.x"), ("sdk_max", "1.0"), ("rollout_percent", "101"), ("rollout_percent", "-1"),
        ("label", String(repeating: "x", count: 201)), ("id", "not-a-uuid"), ("content_type", "bad"),
    ])
    func publishRequest_rejectsInvalid_SPEC3(parameter: String, value: String) {
        var p: [String: String?] = ["sdk_min": "1.0", "sdk_max": nil, "ext": "onnx", "channel": nil,
                                    "rollout_percent": nil, "label": nil, "id": nil, "content_type": nil]
        p[parameter] = value
        do {
            _ = try PublishRequest(
                sdkMin: p["sdk_min"]!!, sdkMax: p["sdk_max"]!, channel: p["channel"]!,
                rolloutPercent: p["rollout_percent"]!.flatMap { Int($0) }, label: p["label"]!, ext: p["ext"]!!,
                contentType: p["content_type"]!, id: p["id"]!)
            Issue.record("accepted \(parameter)=\(value)")
        } catch {
            #expect(error.code == .invalidParameter)
            #expect(error.parameter == parameter)
        }
    }

    @Test func publishRequest_fromQueryDefaults_SPEC7_1() throws {
        let r = try PublishRequest(parameters: ["sdk_min": "2.3", "ext": "mlmodelc.zip"])
        #expect(r.channel == "stable" && r.rolloutPercent == 100 && r.label == "" && r.contentType == "application/zip" && r.id == nil)
        #expect(throws: CatalogError.self) { try PublishRequest(parameters: ["sdk_min": "2.3", "ext": "x", "sdkmax": "3"]) }
        #expect(throws: CatalogError.self) { try PublishRequest(parameters: ["sdk_min": "2.3", "ext": "x", "rollout": "5%"]) }
        #expect(throws: CatalogError.self) { try PublishRequest(parameters: ["ext": "x"]) }
    }

    @Test func newID_isLowercaseV4_SPEC3() throws {
        for _ in 0..<100 {
            let id = Release.newID()
            try Release.validateID(id)
            let b = Array(id.utf8)
            #expect(id == id.lowercased())
            #expect(b[14] == UInt8(ascii: "4"))
            #expect([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(b[19]))
        }
    }

    @Test(arguments: [
        ("2026-11-21T10:00:00.000Z", Int64(1_795_255_200_000)), ("1970-01-01T00:00:00.000Z", 0),
        ("2000-02-29T23:59:59.999Z", 951_868_799_999), ("1969-12-31T23:59:59.999Z", -1),
    ])
    func timestamp_roundTrips_RFC3339(text: String, ms: Int64) {
        #expect(Timestamp(rfc3339: text)?.millisecondsSinceEpoch == ms)
        #expect(Timestamp(millisecondsSinceEpoch: ms).rfc3339 == text)
    }

    @Test func timestamp_parsesOffsetsAndFractions_RFC3339() {
        #expect(Timestamp(rfc3339: "2026-11-21T11:00:00+01:00") == t0)
        #expect(Timestamp(rfc3339: "2026-11-21T10:00:00.0001234Z") == t0)
        for bad in ["2026-11-21", "2026-02-30T00:00:00Z", "2026-11-21T10:00:00", "2026-11-21T25:00:00Z", "2026-11-21T10:00:00.Z"] {
            #expect(Timestamp(rfc3339: bad) == nil, "\(bad)")
        }
    }
}
