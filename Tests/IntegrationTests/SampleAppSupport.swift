import Foundation
import PairTesting

/// What the sample apps of Apple's mirroring sample note in their containers (`Documents/FILE`, one line
/// an event, `PREFIX TEXT`), as `MirroringSampleTests` and `SessionFreeAppTests` read it.
enum SampleAppLog {
    static func lines(_ home: String, _ bundle: String, _ file: String) -> [String] {
        let text = (try? String(contentsOfFile: home + "/apps/\(bundle)/Documents/\(file)", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Lines `PREFIX TEXT`, their texts.
    static func texts(_ lines: [String], _ prefix: String) -> [String] {
        lines.filter { $0.hasPrefix(prefix + " ") }.map { String($0.dropFirst(prefix.count + 1)) }
    }
}

extension SimulatedPair {
    /// A pair of sample apps under their OSes, each with 120 s of background time: the watch's first
    /// (`watchArgument` passed to it), then — after `beforeThePhone` — the phone's, asked to start
    /// (`phoneArgument` passed too); the phone app opened.
    func startSampleApps(
        phone: String, watch: String, phoneArgument: String, watchArgument: String, beforeThePhone: () throws -> Void = {}
    ) throws {
        try startWatchOS(["--app", watch, "--app-arg=\(watchArgument)", "--background-budget-ms", "120000"])
        try beforeThePhone()
        try startPhoneOS(["--app", phone, "--app-arg=--start", "--app-arg=\(phoneArgument)", "--background-budget-ms", "120000"])
        _ = try phoneOSCall(["app", "open"])
    }
}
