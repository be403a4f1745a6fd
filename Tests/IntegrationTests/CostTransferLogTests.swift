import ChildProcesses
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `modelctl cost estimate --transfer-ratio-from LOG --models-dir DIR` (SPEC §16, issue #30 item
/// 4) against a real modeld that derived a pack and a patch and served them, the file and its
/// chunk list to curl: the ratio is the bytes its access log says were sent over what the same
/// downloads would have sent as full files (docs/decisions/cost.md).
@Suite(.serialized) final class CostTransferLogTests {
    @Test(.timeLimit(.minutes(4)))
    func estimate_measuresTheTransferRatioFromTheAccessLog_SPEC16() throws {
        let fx = try CatalogFixture(environment: ["MODELD_PACK_AT_PUBLISH": "true"])
        let server = fx.server
        let (_, _, _, a, b, latest) = try TransferPublishTests.publishFineTune(fx, count: 320 * 1024, seed: 11)   // 1.25 MiB: two blocks
        let size = try #require(latest["size"] as? Int)
        let packSize = try #require((latest["packed"] as? [String: Any])?["size"] as? Int)
        let patchSize = try #require((latest["patches"] as? [[String: Any]])?.first?["size"] as? Int)

        // A full download, a whole pack, a patch cut after 1,000 bytes and resumed, the chunk
        // list; a HEAD and a 304 that send no body.
        let file = "/models/\(b).bin", pack = file + ".pack", patch = file + ".from-\(a).patch"
        let sink = fx.scratch.appendingPathComponent("sink")
        #expect(try fx.curl(file, output: sink).status == 200)
        let packGet = try fx.curl(pack, output: sink)
        #expect(packGet.status == 200)
        #expect(try fx.curl(patch, ["-r", "0-999"], output: sink).status == 206)
        #expect(try fx.curl(patch, ["-r", "1000-"], output: sink).status == 206)
        #expect(try fx.curl(file + ".chunks", output: sink).status == 200)
        #expect(try fx.curl(pack, ["-I"]).status == 200)
        #expect(try fx.curl(pack, ["-H", "If-None-Match: \(packGet.header("ETag") ?? "")"]).status == 304)
        server.signal(SIGTERM)
        #expect(server.waitForExit(within: 30) == 0, "\(server.log)")

        // The expected ratio from the log's own records and the sizes /latest answered.
        let (logs, records) = try CostServerTests.accessLog(server.dataDir)
        try #require(!logs.isEmpty, "no access log in \(server.dataDir.path)")
        func bytes(_ path: String) -> Int {
            CostServerTests.sum(records) { $0["path"] as? String == path && $0["method"] as? String == "GET" && [200, 206].contains($0["status"] as? Int ?? 0) }
        }
        #expect(bytes(file) == size && bytes(pack) == packSize && bytes(patch) == patchSize)
        let sent = bytes(file) + bytes(pack) + bytes(patch) + bytes(file + ".chunks")
        let full = 3 * size   // the file, and the pack and the patch each fetched whole
        let millionths = (2 * sent * 1_000_000 + full) / (2 * full)

        let estimate = ["cost", "estimate", "--downloads", "1000", "--size", "\(size)", "--pricing", CostCLITests.pricing,
                        "--format", "json", "--transfer-ratio-from"] + logs
        let r = try CostCLITests.modelctl(estimate + ["--models-dir", server.modelsDir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let inputs = try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["inputs"] as? [String: Any])
        #expect((inputs["transfer_ratio"] as? NSNumber)?.doubleValue == Double(millionths) / 1e6, "\(inputs), expected \(sent)/\(full)")
        #expect(r.stderr.contains("transfer ratio \(Double(millionths) / 1e6) measured from"), "\(r.stderr)")

        // Usage errors: no catalog, or both ways at once.
        let noCatalog = try CostCLITests.modelctl(estimate)
        #expect(noCatalog.status == 2 && noCatalog.stderr.contains("--models-dir"), "\(noCatalog.stderr)")
        let both = try CostCLITests.modelctl(estimate + ["--models-dir", server.modelsDir.path, "--transfer-ratio", "0.5"])
        #expect(both.status == 2 && both.stderr.contains("exclude each other"), "\(both.stderr)")
    }
}
