/// Shell completion for a program whose command line is a list of `ArgumentSpec`s and no subcommands
/// (`phone-daemon`, `watch-agent`, `phone-os`): `PROGRAM __complete WORD…` answers as `runway __complete`
/// does, so `runway completion bash|zsh|fish` completes them with the same scripts. The answer's first
/// line is its kind — `words`, `files` or `directories` — then, for words, `value<TAB>description` lines.
package enum ArgumentCompletion {
    /// What an option's value may be.
    package enum Values: Sendable {
        case words([String])
        case files
        case directories
    }

    /// The answer for `words` (the last one the word being completed), with `values` by option name.
    package static func answer(_ words: [String], specs: [ArgumentSpec], values: [String: Values]) -> String {
        let current = words.last ?? ""
        let before = words.dropLast()
        let visible = specs.filter { !$0.hidden }
        func listed(_ list: [(String, String)]) -> String {
            (["words"] + list.filter { $0.0.hasPrefix(current) }.map { $0.1.isEmpty ? $0.0 : "\($0.0)\t\($0.1)" }).joined(separator: "\n")
        }
        func valuesOf(_ name: String, prefix: String) -> String {
            switch values[name] {
            case let .words(list)?: listed(list.map { (prefix + $0, "") })
            case .files?: prefix.isEmpty ? "files" : "words"
            case .directories?: prefix.isEmpty ? "directories" : "words"
            case nil: "words"
            }
        }
        // `--save-path=im`: the option's values, each written with its option.
        if current.hasPrefix("--"), let equals = current.firstIndex(of: "=") {
            return valuesOf(String(current.dropFirst(2).prefix { $0 != "=" }), prefix: String(current[...equals]))
        }
        if let previous = before.last, let spec = visible.first(where: { "--" + $0.name == previous }), spec.valueName != nil {
            return valuesOf(spec.name, prefix: "")
        }
        let used = Set(before.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2).prefix { $0 != "=" }) })
        return listed((visible + [.flag("help", "show this help")]).filter { !used.contains($0.name) }.map { ("--" + $0.name, $0.help) })
    }
}
