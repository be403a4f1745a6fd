import ArgumentParser
import ModelCatalog

// pause / resume / retire: one release ID each, one state transition each (SPEC §3:
// paused ↔ active both ways, retired is final). Clients fall back to the previous release at once.

struct AdminPauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Stop offering a release (reversible).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var offline: OfflineChangeOptions
    @Argument(help: "Release UUID.") var id: String

    func validate() throws { try AdminValidation.releaseID(id) }
    func run() throws {
        try failing { try offline.run(id, ReleasePatch(state: .paused), global: global) { try $0.change(id, .init(state: "paused")) } }
    }
}

struct AdminResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Offer a paused release again.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var offline: OfflineChangeOptions
    @Argument(help: "Release UUID.") var id: String

    func validate() throws { try AdminValidation.releaseID(id) }
    func run() throws {
        try failing { try offline.run(id, ReleasePatch(state: .active), global: global) { try $0.change(id, .init(state: "active")) } }
    }
}

struct AdminRetireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retire", abstract: "Retire a release for good; its file stays served for the grace period.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var offline: OfflineChangeOptions
    @Argument(help: "Release UUID.") var id: String

    func validate() throws { try AdminValidation.releaseID(id) }
    func run() throws {
        try failing { try offline.run(id, ReleasePatch(state: .retired), global: global) { try $0.retire(id) } }
    }
}
