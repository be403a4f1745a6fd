import ArgumentParser

/// `modelctl show ID`.
struct AdminShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one release.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Release UUID.") var id: String

    func validate() throws { try AdminValidation.releaseID(id) }

    func run() throws {
        try failing { try global.printRelease { try $0.release(id) } }
    }
}
