import ArgumentParser
import ModelCatalog

/// `modelctl rollout ID PERCENT`: clients whose bucket is below PERCENT get the release (SPEC §3).
struct AdminRolloutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rollout", abstract: "Set a release's rollout percentage.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var offline: OfflineChangeOptions
    @Argument(help: "Release UUID.") var id: String
    @Argument(help: "Rollout percentage, 0-100.") var percent: Int

    func validate() throws {
        try AdminValidation.releaseID(id)
        try AdminValidation.rollout(percent, option: "PERCENT")
    }

    func run() throws {
        try failing { try offline.run(id, ReleasePatch(rolloutPercent: percent), global: global) { try $0.change(id, .init(rolloutPercent: percent)) } }
    }
}
