import ArgumentParser
import Foundation
import ModeldClient

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Print the verified release, or \"up to date\".")
    @ParentCommand var root: ModeldClientCommand

    func run() async throws {
        try await root.report { client in
            let result = try await client.check()
            return StateOutput(state: .init(result.status), active: await client.activeModel(), catalog: result.catalog,
                               release: result.release)
        }
    }
}

struct UpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "update", abstract: "Check, download, verify and install; print the active model.")
    @ParentCommand var root: ModeldClientCommand
    @Flag(help: "Print each phase to stderr (at most one line a second while downloading; JSON lines with --json).")
    var progress = false
    @Flag(help: "A user-initiated update: ignore the stored back-off (a Retry-After of the last 60 s still holds).")
    var now = false

    func run() async throws {
        let observer = progress ? ProgressPrinter(json: root.json).observer : nil
        let trigger: UpdateTrigger = now ? .userInitiated : .scheduled
        if root.channels.count > 1 {
            guard !progress else { throw CLIFailure.usage("--progress takes one --channel") }
            return try await root.updateChannels(trigger)
        }
        try await root.report { client in
            let result = try await Interruption.exitOnSignal { try await client.update(trigger, progress: observer) }
            return StateOutput(state: .init(result.status), active: result.active, catalog: result.catalog, bytesFetched: result.bytesFetched,
                               method: result.method)
        }
    }
}

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Print the active model (id, path, sha256).")
    @ParentCommand var root: ModeldClientCommand

    func run() async throws {
        try await root.withClient { client in
            let active = await client.activeModel()
            var output = StateOutput(state: active == nil ? .none : .installed, active: active, catalog: await client.highestCatalog)
            output.events = (await client.pendingEventCount(), await client.droppedEventCount())
            output.print(json: root.json)
        }
    }
}

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "record", abstract: "Queue one outcome event durably.")
    @ParentCommand var root: ModeldClientCommand
    @Option(help: "Event name (1–64 characters).") var name: String
    @Option(help: "Outcome (≤ 64 characters).") var outcome: String?
    @Option(help: "A finite number.") var value: Double?
    @Option(help: "The model the event is about (default: the active model).") var modelId: String?
    @Option(name: .customLong("repeat"), help: "Queue the event this many times and print how long the calls took (a load test of the queue).")
    var repetitions: Int = 1

    func validate() throws {
        guard (1...10_000_000).contains(repetitions) else { throw ValidationError("--repeat must be 1-10000000, got \(repetitions)") }
    }

    func run() async throws {
        try await root.withClient { client in
            let modelID = if let modelId { modelId } else { await client.activeModel()?.id }
            let event = OutcomeEvent(name: name, modelID: modelID, outcome: outcome, value: value)
            let started = ContinuousClock.now
            for _ in 0..<repetitions { try await client.record(event) }
            let took = ContinuousClock.now - started
            let timing = repetitions > 1 ? "; \(repetitions) record() calls took \(took.formatted(.units(allowed: [.seconds, .milliseconds], fractionalPart: .show(length: 3))))" : ""
            print("queued (\(await client.pendingEventCount()) events pending)\(timing)")
        }
    }
}

struct FlushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flush", abstract: "Send queued events now.")
    @ParentCommand var root: ModeldClientCommand

    func run() async throws {
        try await root.withClient { client in
            let result = try await client.flushEvents()
            print("sent \(result.sent) events, \(result.quarantined) quarantined, \(result.remaining) still queued")
        }
    }
}

struct LaunchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch",
        abstract: "Start the active model as an app launch does (the crash-loop rule counts it); print it.",
        discussion: "With --hold the process stays up, as an app does, until SIGTERM or SIGINT ends it cleanly "
            + "(a healthy launch); a process killed before that counts as a crash.")
    @ParentCommand var root: ModeldClientCommand
    @Flag(help: "Mark the model good (it worked), as the app does after a successful prediction.")
    var markGood = false
    @Flag(help: "Stay running until SIGTERM or SIGINT, then end cleanly.")
    var hold = false

    func run() async throws {
        let termination = hold ? TerminationSignal() : nil
        try await root.withClient { client in
            let model = try await client.launchModel()
            if markGood, let model { try await client.markGood(model.id) }
            StateOutput(state: model == nil ? .none : .installed, active: model, catalog: await client.highestCatalog).print(json: root.json)
            await termination?.wait()
        }
    }
}
