import JSONText

// MARK: - The catalogue as documentation

/// The catalogue in words, for `runway man` and `docs/protocol.md` (between its `generated` markers; a
/// test keeps the file equal to `ControlCommands.markdownReference`): written from the declarations,
/// never by hand, so the docs cannot drift from what the router accepts.
extension ControlArgumentSpec {
    /// `count`: a whole number from 1 to 1000000; default 1. How many runs.
    package var line: String {
        var text = "`\(name)`: \(kind.text)"
        if isRequired {
            text += "; required"
        } else if let defaultValue {
            text += "; default \(defaultValue.stringValue ?? defaultValue.text)"
        }
        return text + ". " + summary.prefix(1).uppercased() + summary.dropFirst() + "."
    }
}

extension ControlErrorSpec {
    /// `7009 payloadTooLarge when the payload encodes to more than 65,536 bytes`
    package var line: String { "\(label) when \(when)" }
}

extension ControlCommandSpec {
    /// The programs that answer it, in the catalogue's order: `phone-daemon, watch-agent`.
    package var programs: String {
        ControlServerKind.allCases.filter(servers.contains).map(\.programName).joined(separator: ", ")
    }

    /// The failures every command of its kind can give, then the ones it declares.
    package var allErrors: [ControlErrorSpec] {
        var all: [ControlErrorSpec] = []
        if isTestCommand { all.append(.invalid("the daemon was not started with --enable-test-commands")) }
        if !arguments.isEmpty {
            all.append(.invalid("an argument is missing, of the wrong type, out of range, or not one it takes"))
        } else {
            all.append(.invalid("it is given any argument"))
        }
        if needsActivatedSession { all.append(.wc(.sessionNotActivated, "the session is not activated yet")) }
        return all + errors
    }

    /// `RecordReply`, or `WatchAppReply (watch-agent), OSStatusReply (phone-os)`; `JSON` if untyped.
    package var replyText: String {
        let servers = ControlServerKind.allCases.filter(self.servers.contains)
        let names = servers.compactMap { replyTypes[$0] }
        if names.isEmpty { return "JSON" }
        if Set(names).count == 1 && names.count == servers.count { return "`\(names[0])`" }
        return servers.map { server in "`\(replyTypes[server] ?? "JSON")` (\(server.programName))" }.joined(separator: ", ")
    }
}

extension ControlCommands {
    /// The catalogue as Markdown: one entry per command, its arguments, its reply and its failures.
    package static var markdownReference: String {
        var lines: [String] = []
        for spec in all {
            var flags: [String] = []
            if spec.needsActivatedSession { flags.append("session") }
            if spec.isTestCommand { flags.append("test only") }
            lines.append("- **`\(spec.name)`** (\(spec.programs)\(flags.isEmpty ? "" : "; " + flags.joined(separator: ", "))) — \(spec.summary).")
            for argument in spec.arguments { lines.append("  - " + argument.line) }
            if spec.arguments.isEmpty { lines.append("  - no arguments.") }
            lines.append("  - reply: \(spec.replyText).")
            lines.append("  - fails: " + spec.allErrors.map(\.line).joined(separator: "; ") + ".")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
