/// The EXAMPLES of each command's `--help` and of the man page: one table, keyed by the command's words.
/// A command missing here (or whose one example would be that) gets one made from its synopsis (its required part), so no help is
/// without an example; `HelpExamplesTests` checks that each example names a real command and parses.
enum Examples {
    static let table: [String: [String]] = [
        "pair": [
            "runway pair --phone ~/rw/phone --watch ~/rw/watch --name home", "runway pair --phone /tmp/p --watch /tmp/w --json",
            "runway pair --phone /tmp/p --watch /tmp/w --new",
        ],
        "list": ["runway list", "runway list --json"],
        "unpair": ["runway unpair home"],
        "up": ["runway up", "runway up home --json"],
        "down": ["runway down", "runway down home"],
        "completion": ["runway completion bash", "runway completion zsh", "runway completion fish | source"],
        "man": ["runway man | man -l -"],
        "dump": ["runway dump --home ~/rw/phone", "runway dump --home ~/rw/watch --limit 10 --json"],
        "watch record": ["runway watch record --count 3", "runway watch record --count 300000 --seed 7", "runway watch record --distance 5 --json"],
        "watch status": ["runway watch status", "runway watch status --json"],
        "link fail-next": ["runway link fail-next 2", "runway link fail-next 1 --code 7014"],
        "link set": [
            "runway link set --latency 50 --jitter 20 --loss 0.2", "runway link set --range wifi", "runway link set --bandwidth 800 --json",
            "runway link set --reset --range near",
        ],
        "link show": ["runway link show", "runway link show --json"],
        "link schedule": ["runway link schedule flaky.json", "runway link schedule flaky.json --seed 7 --json"],
        "watch link set": ["runway watch link set --range out"],
        "watch link show": ["runway watch link show --pair home"],
        "watch link schedule": ["runway watch link schedule flaky.json --seed 7"],
        "watch link up": ["runway watch link up --pair home"],
        "watch link fail-next": ["runway watch link fail-next 2 --code 7015"],
        "watch run start": ["runway watch run start --mode pace --target-pace 5:30", "runway watch run start --mode heart-rate --target-hr 140-160"],
        "watch run sample": ["runway watch run sample --t 60 --distance-m 200 --pace 5:00 --hr 150", "runway watch run sample --json-file samples.json"],
        "watch run status": ["runway watch run status --json"],
        "watch run replay": ["runway watch run replay --seed 1 --distance 5"],
        "watch fault workout-start": ["runway watch fault workout-start refuse", "runway watch fault workout-start none"],
        "watch transfer-userinfo": [
            "runway watch transfer-userinfo --json-file note.json",
            #"echo '{"at":{"$date":"2026-11-30T07:00:00Z"},"raw":{"$data":"AAE="}}' | runway watch transfer-userinfo --json-file -"#,
        ],
        "watch received": ["runway watch received --json"],
        "watch context set": ["runway watch context set --json-file context.json"],
        "watch context get": ["runway watch context get --json"],
        "watch message": ["runway watch message --json-file ping.json --timeout 2000", "runway watch message --json-file lap.json --no-reply"],
        "watch transfers": ["runway watch transfers", "runway watch transfers --limit 10 --json"],
        "watch cancel": ["runway watch cancel 42"],
        "watch quarantine": ["runway watch quarantine --json"],
        "watch quarantine remove": ["runway watch quarantine remove 3", "runway watch quarantine remove --all"],
        "watch events": ["runway watch events", "runway watch events --follow --json", "runway watch events --limit 0 --follow"],
        "phone status": ["runway phone status", "runway phone status --json"],
        "phone logbook": ["runway phone logbook", "runway phone logbook --expand all --first-weekday mon", "runway phone logbook --json"],
        "phone flight": [
            "runway phone flight 01937C2E-5B7A-7C3D-9E4F-1A2B3C4D5E6F", "runway phone flight 01937C2E-5B7A-7C3D-9E4F-1A2B3C4D5E6F --no-charts --json",
        ],
        "top": ["runway top", "runway top home --interval-ms 500", "runway top --once --json"],
        "timeline record": ["runway timeline record --out run.timeline --until-drained"],
        "scenario run": [
            "runway scenario run docs/scenarios/runway-1.3-reclaimed.json", "runway scenario run docs/scenarios/kills-lose-nothing.json --seed 7",
            "runway scenario run bug.json --seed 7 --keep --json", "cat bug.json | runway scenario run -",
        ],
        "timeline show": ["runway timeline show run.timeline", "runway timeline show run.timeline --svg run.svg"],
        "phone delete": ["runway phone delete 01937C2E-5B7A-7C3D-9E4F-1A2B3C4D5E6F", "runway phone delete 01937C2E-5B7A-7C3D-9E4F-1A2B3C4D5E6F --yes"],
        "phone ui": ["runway phone ui", "runway phone ui --expand all"],
        "phone alerts": ["runway phone alerts", "runway phone alerts --json"],
        "phone run start": ["runway phone run start --mode pace --target-pace 5:30"],
        "phone run sample": ["runway phone run sample --t 60 --distance-m 200 --pace 5:00 --hr 150"],
        "phone run status": ["runway phone run status --json"],
        "phone transfer-userinfo": ["runway phone transfer-userinfo --json-file note.json"],
        "phone received": ["runway phone received", "runway phone received --json"],
        "phone context set": ["runway phone context set --json-file context.json"],
        "phone context get": ["runway phone context get --json"],
        "phone message": ["runway phone message --json-file ping.json"],
        "phone transfers": ["runway phone transfers --json"],
        "phone cancel": ["runway phone cancel 7"],
        "phone quarantine": ["runway phone quarantine", "runway phone quarantine --limit 5 --json"],
        "phone quarantine remove": ["runway phone quarantine remove 1", "runway phone quarantine remove --all --json"],
        "phone events": ["runway phone events", "runway phone events --follow --json", "runway phone events --follow | grep didReceiveUserInfo"],
        "phone os status": ["runway phone os status --json"],
        "phone notifications": ["runway phone notifications", "runway phone notifications --json"],
        "phone notifications open": ["runway phone notifications open reminder-7d"],
        "phone language": ["runway phone language --json"],
        "phone language set": ["runway phone language set ja", "runway phone language set system"],
        "phone strings": ["runway phone strings --json"],
        "clock show": ["runway clock show --phone ~/rw/phone --watch ~/rw/watch", "runway clock show --home ~/rw/watch --json"],
        "clock set": [
            "runway clock set 2026-12-01T07:00:00+09:00 --phone ~/rw/phone --watch ~/rw/watch",
            "runway clock set 2026-12-01T07:00:00Z --home ~/rw/phone --frozen",
        ],
        "clock advance": ["runway clock advance 7d --phone ~/rw/phone --watch ~/rw/watch", "runway clock advance 1d12h --home ~/rw/phone"],
        "clock reset": ["runway clock reset --phone ~/rw/phone --watch ~/rw/watch"],
        "phone preflight": ["runway phone preflight", "runway phone preflight --legacy --json"],
        "appstore set": [
            "runway appstore set --version 1.5 --url https://apps.apple.com/app/runway", "runway appstore set --json-file lookup.json --delay-ms 500",
        ],
        "appstore fail network": ["runway appstore fail network", "runway appstore fail network --delay-ms 2000"],
        "appstore show": ["runway appstore show --json"],
        "phone update status": ["runway phone update status --json"],
        "phone update respond": ["runway phone update respond later", "runway phone update respond update"],
    ]

    /// The examples for `command`: the table's, else one made from its synopsis (words outside `[...]`).
    static func examples(for command: CLI.Command) -> [String] {
        let name = command.path.joined(separator: " ")
        if let listed = table[name], !listed.isEmpty { return listed }
        var depth = 0
        var words: [String] = []
        for word in command.synopsis.split(separator: " ") {
            depth += word.filter { $0 == "[" || $0 == "(" }.count
            if depth == 0, !word.contains("|") { words.append(String(word)) }
            depth -= word.filter { $0 == "]" || $0 == ")" }.count
        }
        // The home is the registered pair's: leave --home and its value out.
        if let index = words.firstIndex(of: "--home"), index + 1 < words.count { words.removeSubrange(index...(index + 1)) }
        return [(["runway", name] + words).joined(separator: " ")]
    }

    /// The `examples:` block of `--help`.
    static func helpSection(for command: CLI.Command) -> String {
        "examples:\n" + examples(for: command).map { "  " + $0 }.joined(separator: "\n")
    }
}
