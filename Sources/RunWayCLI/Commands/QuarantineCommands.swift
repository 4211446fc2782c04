import Posix
import Connectivity
import Control
import JSONText

/// `runway {phone|watch} quarantine [remove ID|--all]`: the received transfers the app could not take
/// (undecodable, or malformed by the app's rules), kept instead of dropped.
enum QuarantineCLI {
    static func commands(_ device: DeviceRole) -> [CLI.Command] {
        let name = device.rawValue
        let home = device == .phone ? "P" : "W"
        return [
            CLI.Command(
                path: [name, "quarantine"], synopsis: "--home \(home) [--limit N] [--json]",
                summary: """
                    The transfers received by the \(name) that its app could not take — bytes that do not decode, or a
                    userInfo the app rejects (a flight with a field out of range) — kept with the reason instead of being
                    dropped. Each was acknowledged only once it was kept here. Oldest first.
                    """,
                specs: [CLI.homeSpec, .option("limit", "N", "list at most N (default 100)"), CLI.jsonSpec], positionals: 0,
                run: { parsed in
                    var request = ControlCommands.Quarantine()
                    if let limit = try parsed.integer("limit", range: 1...100_000) { request.limit = limit }
                    let result = try SessionCLI.call(parsed, device, request)
                    if parsed.has("json") {
                        Output.out(result.json.text)
                        return 0
                    }
                    var lines = ["\(result.quarantined) quarantined"]
                    for item in result.transfers {
                        lines.append("  \(item.id)  transfer \(item.transferId)  \(item.quarantinedAt)  \(item.bytes) bytes  \(item.reason)")
                    }
                    Output.out(lines.joined(separator: "\n"))
                    return 0
                }),
            CLI.Command(
                path: [name, "quarantine", "remove"], synopsis: "ID|--all --home \(home) [--json]",
                summary:
                    "Removes one quarantined transfer (its quarantine id, from `runway \(name) quarantine`), or all of them. Exit 1 if there is no such id.",
                specs: [CLI.homeSpec, .flag("all", "remove every quarantined transfer"), CLI.jsonSpec], positionals: 1,
                run: { parsed in
                    var request = ControlCommands.QuarantineRemove()
                    if parsed.has("all") {
                        guard parsed.positionals.isEmpty else { throw UsageError("give an ID or --all, not both") }
                        request.all = true
                    } else {
                        guard let text = parsed.positionals.first, let id = Int(text), id > 0 else {
                            throw UsageError("a quarantine ID (a positive number) or --all is required")
                        }
                        request.id = id
                    }
                    let reply = try SessionCLI.call(parsed, device, request)
                    Output.out(parsed.has("json") ? reply.json.text : "removed \(reply.removed)")
                    return 0
                }),
        ]
    }
}
