import ArgumentParser

@main
struct Modelctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modelctl",
        abstract: "Operate modeld: publish models, steer rollouts, read events, estimate egress cost.",
        subcommands: [EventsCommand.self] // each command group adds itself here
    )
}
