import ArgumentParser

@main
struct Modelctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modelctl",
        abstract: "Operate modeld: publish models, steer rollouts, read events, estimate egress cost.",
        subcommands: [ // one line per command group
            PublishCommand.self,
            AdminListCommand.self,
            AdminShowCommand.self,
            AdminRolloutCommand.self,
            AdminPauseCommand.self,
            AdminResumeCommand.self,
            AdminRetireCommand.self,
            LiveCommand.self,
            LatestCommand.self,
            HealthCommand.self,
            VerifyCommand.self,
            CatalogCommand.self,
            VariantCommand.self,
            KeysCommand.self,
            TokensCommand.self,
            SignCommand.self,
            CostCommand.self,
            EventsCommand.self,
            ExperimentCommand.self,
            MirrorCommand.self,
            ChunksCommand.self,
            PacksCommand.self,
            DeltaCommand.self,
            PackCommand.self,
            PatchCommand.self,
            UnpackCommand.self,
        ]
    )
}
