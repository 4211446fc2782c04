/// The commands that draw: `runway top`, `runway timeline record|show` (docs/views.md).
enum ViewCommands {
    static let all: [CLI.Command] = [TopCommand.command, TimelineCommands.record, TimelineCommands.show]
}
