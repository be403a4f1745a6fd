import ArgumentParser

/// `modelctl list`: every release, newest state from the server.
struct AdminListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List all releases.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try failing { try ReleaseOutput(json: global.json).printList(try global.adminAPI().list()) }
    }
}
