import Foundation
import Testing

/// SPEC §2: at start-up modeld removes every file in `models/.tmp/` that is its own instance's
/// (`<instance_id>-…`, whatever the suffix) and never another instance's — replicas share the
/// directory and may be mid-upload.
@Suite struct CatalogTempCleanupTests {
    @Test func startUpRemovesOwnTempsOfAnySuffix_keepsOthers_SPEC2() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-tmpclean-\(UUID().uuidString)")
        let tmp = root.appendingPathComponent("models/.tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let own = ["web-1-0123456789abcdef", "web-1-0123456789abcdef.part", "web-1-f00d", "web-1-1a2b.sig.tmp"]
        // `web-1-b` and `web-10` are other instances: `web-1-b-…` starts with "web-1-" but is theirs.
        let others = ["web-1-b-0123456789abcdef", "web-10-0123456789abcdef", "modelctl-4242-0123456789abcdef", "web-2-0123456789abcdef.part"]
        for name in own + others { try Data(name.utf8).write(to: tmp.appendingPathComponent(name)) }

        let server = try ModeldServer(environment: ["MODELD_INSTANCE_ID": "web-1"], root: root)
        let left = { Set((try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []) }
        #expect(ModeldServer.eventually(within: 5) { left().isDisjoint(with: own) }, "own temps left: \(left().intersection(own))")
        #expect(left() == Set(others), "\(left())")
        for name in others { #expect(try String(contentsOf: tmp.appendingPathComponent(name), encoding: .utf8) == name) }
        #expect(server.log.contains("removed \(own.count) unfinished upload(s)"), "\(server.log)")
    }
}
