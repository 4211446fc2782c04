import Connectivity
import Control
import JSONText
import Posix
import RunWayDomain

/// What the shells' completion asks `runway __complete WORD…` (the words after `runway`, the last one the
/// word being completed, maybe empty): command words, options, and values — from the same command list
/// and specs as `--help`, plus what only a running system knows (pair names, flight ids). The three
/// shells' scripts (`CompletionScripts`) are thin: they pass the words and show the answer.
///
/// The answer's first line is its kind — `words`, `files` or `directories` (the shell completes paths
/// itself) — then, for words, one candidate a line, `value<TAB>description`.
enum Completion {
    enum Answer: Equatable {
        case words([(value: String, description: String)])
        case files
        case directories

        static func == (a: Answer, b: Answer) -> Bool { a.text == b.text }

        var text: String {
            switch self {
            case .files: "files"
            case .directories: "directories"
            case let .words(list): (["words"] + list.map { $0.description.isEmpty ? $0.value : "\($0.value)\t\($0.description)" }).joined(separator: "\n")
            }
        }
    }

    /// Where a value comes from: a fixed list, or something to ask.
    enum Values {
        case words([(String, String)])
        case files, directories
        case pairs, flights, months(withAll: Bool), transfers(DeviceRole), quarantined(DeviceRole)
    }

    static func answer(_ words: [String], commands: [CLI.Command] = CLI.commands) -> Answer {
        let current = words.last ?? ""
        let before = Array(words.dropLast())
        let lead = Array(before.prefix { !$0.hasPrefix("-") })
        // The typed words that name a command or a group of them (`phone`, `phone language`).
        var depth = lead.count
        while depth > 0 && !commands.contains(where: { $0.path.starts(with: lead.prefix(depth)) }) { depth -= 1 }
        let known = Array(lead.prefix(depth))
        let command = commands.filter { lead.starts(with: $0.path) }.max { $0.path.count < $1.path.count }
        // Right after the command words: the next word of a command (and the values of its first argument).
        if before == known && !current.hasPrefix("-") {
            var next: [(String, String)] = []
            for candidate in commands where candidate.path.count > depth && candidate.path.starts(with: known) {
                let word = candidate.path[depth]
                next.append((word, candidate.path.count == depth + 1 ? firstSentence(candidate.summary) : "\(word) commands"))
            }
            if let command, command.path == known, command.positionals > 0, let values = positionalValues(command, index: 0) {
                return answer(values, command, before, current, after: next)
            }
            if !next.isEmpty || command == nil { return filtered(words: next, current) }
        }
        guard let command else { return .words([]) }
        let specs = CLI.effectiveSpecs(command).filter { !$0.hidden }
        // `--mode=pa`: the option's values, each written with its option.
        if current.hasPrefix("--"), let equals = current.firstIndex(of: "=") {
            let name = String(current.dropFirst(2).prefix { $0 != "=" })
            guard let spec = specs.first(where: { $0.name == name && $0.valueName != nil }) else { return .words([]) }
            let prefix = String(current[...equals])
            return filtered(words: resolve(optionValues(spec, command), command: command, before).map { (prefix + $0.0, $0.1) }, current)
        }
        // After an option that takes a value: its values.
        if let previous = before.last, before.count > command.path.count, let spec = specs.first(where: { "--" + $0.name == previous }),
            spec.valueName != nil
        {
            return answer(optionValues(spec, command), command, before, current)
        }
        // A positional's values, when one is still to come and the word is not an option.
        let given = positionalCount(Array(before.dropFirst(command.path.count)), specs)
        if !current.hasPrefix("-") && given < command.positionals, let values = positionalValues(command, index: given) {
            return answer(values, command, before, current)
        }
        // The options not given yet.
        let used = Set(before.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2).prefix { $0 != "=" }) })
        let options = (specs + [.flag("help", "show this help")]).filter { !used.contains($0.name) }.map { ("--" + $0.name, $0.help) }
        return filtered(words: options, current)
    }

    /// `values` that start with `current`, after the words `after`; paths, alone, the shell's to complete.
    static func answer(_ values: Values, _ command: CLI.Command, _ before: [String], _ current: String, after: [(String, String)] = []) -> Answer {
        switch values {
        case .files where after.isEmpty: .files
        case .directories where after.isEmpty: .directories
        default: filtered(words: after + resolve(values, command: command, before), current)
        }
    }

    /// How many positionals `words` (after the command's path) hold: option values are not positionals.
    static func positionalCount(_ words: [String], _ specs: [ArgumentSpec]) -> Int {
        var count = 0, index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word.hasPrefix("--") {
                if !word.contains("="), specs.first(where: { "--" + $0.name == word })?.valueName != nil { index += 1 }
            } else if !word.hasPrefix("-") || word.count == 1 {
                count += 1
            }
        }
        return count
    }

    static func filtered(words list: [(String, String)], _ current: String) -> Answer {
        var seen = Set<String>()
        return .words(list.filter { $0.0.hasPrefix(current) && seen.insert($0.0).inserted }.map { (value: $0.0, description: $0.1) })
    }

    static func firstSentence(_ text: String) -> String {
        let flat = text.split(separator: "\n").map { String($0).trimmingWhitespace }.joined(separator: " ")
        let sentence = (flat.split(separator: " (", omittingEmptySubsequences: false).first ?? flat[...]).prefix { $0 != "." && $0 != ";" && $0 != ":" }
        return sentence.count > 70 ? String(sentence.prefix(69)) + "…" : String(sentence)
    }

    // MARK: - Where values come from

    static let languages: [(String, String)] =
        AppLanguage.allCases.map { ($0.rawValue, ["ko": "Korean", "en": "English", "ja": "Japanese"][$0.rawValue] ?? "") } + [
            ("system", "follow the system's languages")
        ]
    static let modes = [("pace", "fly to a target pace"), ("heart-rate", "a Mission Flight: fly in a heart-rate zone")]
    static let weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"].map { ($0, "") }

    /// The values of an option, by its name (the same option means the same thing in every command).
    static func optionValues(_ spec: ArgumentSpec, _ command: CLI.Command) -> Values {
        switch spec.name {
        case "mode": .words(modes)
        case "first-weekday": .words(weekdays)
        case "pair": .pairs
        // The Logbook's months (the alerts' months are not worth a query of their own).
        case "toggle": command.path == ["phone", "alerts"] ? .words([]) : .months(withAll: false)
        case "expand": .months(withAll: true)
        case "code": .words([("7017", "transferTimedOut"), ("7014", "deliveryFailed"), ("7015", "insufficientSpace")])
        case "home", "phone", "watch": .directories
        case "json-file", "out", "svg": .files
        // A derived command's choice: its declaration's values (`DerivedCLI`).
        default: .words((command.choices[spec.name] ?? []).map { ($0, "") })
        }
    }

    /// The values of a command's positional argument `index`, or nil when it takes any word.
    static func positionalValues(_ command: CLI.Command, index: Int) -> Values? {
        switch command.path {
        case ["phone", "language", "set"]: .words(languages)
        case ["phone", "update", "respond"]: .words([("update", "open the App Store page"), ("later", "dismiss the alert")])
        case ["appstore", "fail"]: .words([("network", "the lookup fails: offline")])
        case ["watch", "fault", "workout-start"]:
            .words([("refuse", "answer workoutFailed"), ("ignore", "never answer"), ("none", "start the workout (the default)")])
        case ["completion"]: .words([("bash", ""), ("zsh", ""), ("fish", "")])
        case ["up"], ["down"], ["unpair"], ["top"]: .pairs
        case ["phone", "flight"], ["phone", "delete"]: .flights
        case ["phone", "cancel"]: .transfers(.phone)
        case ["watch", "cancel"]: .transfers(.watch)
        case ["phone", "quarantine", "remove"]: .quarantined(.phone)
        case ["watch", "quarantine", "remove"]: .quarantined(.watch)
        case ["timeline", "show"], ["scenario", "run"]: .files
        default: nil
        }
    }

    /// The words of `values`; what must be asked is asked of the registry or the running device, briefly
    /// (a device that is not running, or does not answer within half a second, offers nothing).
    static func resolve(_ values: Values, command: CLI.Command, _ before: [String]) -> [(String, String)] {
        switch values {
        case let .words(list): return list
        case .files, .directories: return []
        case .pairs:
            return ((try? PairRegistry.load())?.pairs ?? []).map { ($0.name, "phone \($0.phone), watch \($0.watch)") }
        case .flights, .months:
            let flights = logbook(before)
            if case let .months(withAll) = values {
                return (withAll ? [("all", "every month")] : []) + LogbookText.monthKeys(flights, calendar: .current()).map { ($0, "") }
            }
            return flights.reversed().compactMap { flight in
                // The Logbook's line, less the id it ends with.
                flight["id"]?.stringValue.map { id in (id, LogbookText.line(flight, calendar: .current()).replacingOccurrences("  " + id, "")) }
            }
        case let .transfers(role):
            guard let client = device(before, role),
                let reply = try? client.send(
                    ControlCommands.Transfers { $0.limit = maximumListed })
            else { return [] }
            return reply.outstanding.filter { !$0.onTheWire }.map { item in
                (String(item.transferId), "\(item.bytes) bytes, keys \(item.keys.joined(separator: ","))")
            }
        case let .quarantined(role):
            guard let client = device(before, role),
                let reply = try? client.send(
                    ControlCommands.Quarantine { $0.limit = maximumListed })
            else { return [] }
            return reply.transfers.map { (String($0.id), $0.reason) }
        }
    }

    /// The phone's flights, if it runs and holds few enough for a listing to be cheap (else none).
    static func logbook(_ before: [String]) -> [JSONValue] {
        guard let client = device(before, .phone), let status = try? client.send(ControlCommands.Status()),
            let count = status.json["flights"]?.intValue, count <= maximumListed
        else { return [] }
        return (try? client.send(ControlCommands.Logbook()).value.arrayValue) ?? []
    }

    /// A completion lists at most this many, newest first: more would not be read, and fetching them not cheap.
    static let maximumListed = 1000

    /// A client of the device the typed words name (`--home`, `--pair`, or the only pair), if it is running.
    static func device(_ before: [String], _ role: DeviceRole) -> ControlClient? {
        var parsed = ParsedArguments()
        var index = 0
        while index < before.count {
            let word = before[index]
            index += 1
            for name in ["home", "pair"] {
                if word == "--" + name, index < before.count {
                    parsed.values[name] = before[index]
                } else if word.hasPrefix("--\(name)=") {
                    parsed.values[name] = String(word.dropFirst(name.count + 3))
                }
            }
        }
        guard let path = try? CLI.homePath(parsed, role) else { return nil }
        let home = DeviceHome(path: path, role: role)
        guard Filesystem.kind(of: home.controlSocketPath) == .socket else { return nil }
        return try? ControlClient(home: home, timeoutMilliseconds: 500)
    }
}
