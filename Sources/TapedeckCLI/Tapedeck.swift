import ArgumentParser

@main
struct Tapedeck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tapedeck",
        abstract: "Deterministic network simulation and record/replay for URLSession clients.",
        version: "0.1.0",
        subcommands: [RunCommand.self, CheckDeterminismCommand.self, ExploreCommand.self, ShrinkCommand.self, CassetteCommand.self,
                      ServeCommand.self, RecordCommand.self]
    )
}
