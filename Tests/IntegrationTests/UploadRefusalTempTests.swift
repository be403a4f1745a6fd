import Foundation
import HTTPTestSupport
import Testing

/// SPEC §2, §7.1 (issue 35 item 7): a refused upload or variant upload has removed its
/// `models/.tmp/<instance>-…` temp by the time its answer arrives, 20 times over for each way
/// of refusing it after the body began. (The test server derives nothing, `pack_at_publish`
/// false, so no other writer uses `.tmp`.)
@Suite final class UploadRefusalTempTests {
    static let repeats = 20
    let fx: CatalogFixture
    let body: [UInt8]
    init() throws {
        fx = try CatalogFixture(environment: ["MODELD_LIMITS_MAX_UPLOAD_BYTES": "\(1 << 20)"])
        body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
    }

    static let wrong = String(repeating: "0", count: 64)
    static let publishPath = "/admin/models?sdk_min=1.0&ext=bin"

    var tmp: [String] { fx.modelsEntries().tmp.sorted() }

    /// A chunked POST of `body` (64 KiB chunks) ending with `trailer`, read up to the answer's
    /// head; `.tmp` is listed the moment that head is in.
    func chunked(_ path: String, trailer: String, extraHead: String = "") throws -> (status: Int, tmp: [String]) {
        let client = try RawClient(port: fx.server.port)
        var request = Array(("POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fx.server.token)\r\n"
                             + "Transfer-Encoding: chunked\r\nTrailer: X-Model-SHA256\r\n\(extraHead)\r\n").utf8)
        for start in stride(from: 0, to: body.count, by: 65_536) {
            let chunk = body[start..<min(start + 65_536, body.count)]
            request += Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10]
        }
        request += Array("0\r\n\(trailer)\r\n".utf8)
        try client.send(request)
        let head = try client.readHead()
        return (head.status, tmp)
    }

    @Test func aMismatchedOrMalformedTrailer_refusesWithTheTempGone() throws {
        for i in 0..<Self.repeats {
            let mismatch = try chunked(Self.publishPath, trailer: "X-Model-SHA256: \(Self.wrong)\r\n")
            #expect(mismatch.status == 422 && mismatch.tmp.isEmpty, "round \(i): \(mismatch)")
            let malformed = try chunked(Self.publishPath, trailer: "X-Model-SHA256: not-hex\r\n")
            #expect(malformed.status == 400 && malformed.tmp.isEmpty, "round \(i): \(malformed)")
        }
        #expect(try fx.curl("/latest?sdk=1.0").status == 404)
    }

    @Test func curlRefusals_mismatchTooLargeAndIdInUse_leaveNoTemp_atTheirAnswer() throws {
        let file = fx.scratch.appendingPathComponent("model.bin")
        try Data(body).write(to: file)
        let big = try fx.randomFile(size: (1 << 20) + 1)
        let taken = try #require(try fx.publish(file)["id"] as? String)
        let cases: [(String, [String], Int, String)] = [
            ("mismatch", ["-T", file.path, "-X", "POST", "-H", "Transfer-Encoding: chunked", "-H", "X-Model-SHA256: \(Self.wrong)"], 422, Self.publishPath),
            ("over max_upload_bytes", ["-T", big.path, "-X", "POST", "-H", "Transfer-Encoding: chunked"], 413, Self.publishPath),
            ("id in use", ["-T", file.path, "-X", "POST", "-H", "Transfer-Encoding: chunked"], 409, Self.publishPath + "&id=\(taken)"),
            ("variant mismatch", ["-T", file.path, "-X", "POST", "-H", "Transfer-Encoding: chunked", "-H", "X-Model-SHA256: \(Self.wrong)"], 422,
             "/admin/models/\(taken)/variants?name=small&requires=min_ram_mb%3D1000&ext=bin"),
            ("variant over max_upload_bytes", ["-T", big.path, "-X", "POST", "-H", "Transfer-Encoding: chunked"], 413,
             "/admin/models/\(taken)/variants?name=small&requires=min_ram_mb%3D1000&ext=bin"),
        ]
        for i in 0..<Self.repeats {
            for (name, arguments, status, path) in cases {
                let answer = try fx.curl(path, fx.auth + arguments)
                let left = tmp
                #expect(answer.status == status && left.isEmpty, "round \(i), \(name): \(answer.status) \(answer.text), .tmp \(left)")
            }
        }
        #expect((try fx.curl("/admin/models", fx.auth).json?["releases"] as? [Any])?.count == 1)
    }
}
