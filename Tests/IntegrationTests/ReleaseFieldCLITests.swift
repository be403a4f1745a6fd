import ChildProcesses
import Foundation
import SelectionVectors
import Testing

/// `modelctl publish` judges the shared release field table (SPEC §3) through the real binary:
/// a value the server would refuse exits 2 naming its flag before anything is written; a value
/// it accepts publishes (offline, `--models-dir`). The server and the client run the same table.
@Suite struct ReleaseFieldCLITests {
    private static let flags: [ReleaseFieldCases.Field: String] = [
        .id: "--id", .channel: "--channel", .label: "--label", .sdkMin: "--sdk-min", .sdkMax: "--sdk-max",
        .baseChannel: "--base-channel", .baseSHA256: "--base-sha256", .displayName: "--display-name",
        .licenseSPDX: "--license-spdx", .licenseURL: "--license-url", .licenseSHA256: "--license-sha256", .minRAMMB: "--min-ram-mb",
    ]

    @Test func modelctlPublishJudgesTheSharedTable() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("release-fields-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("model.onnx")
        try Data("weights".utf8).write(to: file)
        for (index, c) in ReleaseFieldCases.all.enumerated() {
            let f = ReleaseFieldCases.fields(for: c)
            let models = scratch.appendingPathComponent("models-\(index)")
            var arguments = ["publish", file.path, "--models-dir", models.path, "--json",
                             "--sdk-min", f.sdkMin, "--channel", f.channel, "--label", f.label, "--id", f.id]
            let optional: [(String, String?)] = [
                ("--sdk-max", f.sdkMax), ("--base-channel", f.baseChannel), ("--base-sha256", f.baseSHA256),
                ("--display-name", f.displayName), ("--license-spdx", f.licenseSPDX), ("--license-url", f.licenseURL),
                ("--license-sha256", f.licenseSHA256), ("--min-ram-mb", f.minRAMMB),
            ]
            for case let (flag, value?) in optional { arguments += [flag, value] }
            let result = try ChildProcess.run(TestBinaries.modelctl, arguments, directory: scratch, timeout: .seconds(60))
            if c.valid {
                #expect(result.status == 0, "\(c): \(result.stderr)")
            } else {
                #expect(result.status == 2, "\(c): exit \(result.status) \(result.stderr)")
                #expect(result.stderr.contains(Self.flags[c.field]!), "\(c): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: models.appendingPathComponent("catalog.json").path), "\(c)")
            }
        }
    }
}
