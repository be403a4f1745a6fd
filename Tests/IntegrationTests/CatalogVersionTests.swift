import ChildProcesses
import Foundation
import Testing

/// `catalog_version` (SPEC §12) through the real binaries: every change made through the server
/// or offline bumps it by one; `modelctl list/show --json` and every admin answer report it.
@Suite(.serialized) final class CatalogVersionTests {
    private func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(result.status == 0, "modelctl failed: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    private func listedVersion(_ fx: CatalogFixture) throws -> Int? {
        try json(try fx.modelctl(["list", "--json"]))["catalog_version"] as? Int
    }

    @Test func everyChangeBumpsTheVersion_modelctlShowsIt_SPEC12() throws {
        // The shipped demo catalog predates the field: it loads as version 0, unchanged.
        let fx = try CatalogFixture(empty: false)
        let shipped = try fx.catalogOnDisk()
        #expect(shipped["catalog_version"] == nil)
        let demo = try #require((shipped["releases"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try listedVersion(fx) == 0)
        #expect(try json(try fx.modelctl(["show", demo, "--json"]))["catalog_version"] as? Int == 0)

        let published = try fx.publish(try fx.randomFile(), ["--rollout", "10"])
        let id = try #require(published["id"] as? String)
        #expect(published["catalog_version"] as? Int == 1, "the first write gives a legacy catalog its version")
        #expect(try fx.catalogOnDisk()["catalog_version"] as? Int == 1)

        var expected = 1
        for command in [["rollout", id, "50"], ["pause", id], ["resume", id], ["rollout", id, "100"], ["retire", id]] {
            expected += 1
            #expect(try json(try fx.modelctl(command + ["--json"]))["catalog_version"] as? Int == expected, "\(command)")
            #expect(try fx.catalogOnDisk()["catalog_version"] as? Int == expected, "\(command) on disk")
        }
        #expect(try listedVersion(fx) == expected)
        let shown = try json(try fx.modelctl(["show", id, "--json"]))
        #expect(shown["catalog_version"] as? Int == expected && shown["state"] as? String == "retired")

        // A failed change (a retired release cannot change) bumps nothing.
        #expect(try fx.modelctl(["resume", id]).status == 1)
        #expect(try fx.catalogOnDisk()["catalog_version"] as? Int == expected)

        // An offline publish into the same directory is a change too; the server sees it (≤ 2 s).
        let offline = try ChildProcess.run(TestBinaries.modelctl, [
            "publish", try fx.randomFile().path, "--sdk-min", "1", "--models-dir", fx.server.modelsDir.path, "--json",
        ], directory: fx.scratch)
        #expect(try json(offline)["catalog_version"] as? Int == expected + 1)
        #expect(try ModeldServer.eventually(within: 5) { try listedVersion(fx) == expected + 1 })

        // Text output names it too.
        let text = try fx.modelctl(["show", id])
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("catalog_version:") && $0.hasSuffix(" \(expected + 1)") },
                "\(text.stdout)")
    }
}
