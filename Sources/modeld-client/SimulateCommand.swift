import ArgumentParser
import Foundation
import ModeldClient

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "simulate", abstract: "Many simulated installs posting outcome events (not yet implemented).")
    @ParentCommand var root: ModeldClientCommand

    func run() async throws {
        printError("modeld-client: simulate is not implemented yet")
        throw ExitCode(1)
    }
}
