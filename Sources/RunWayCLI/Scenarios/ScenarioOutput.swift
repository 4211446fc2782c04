import Control
import JSONText
import Posix

/// What `runway scenario run` prints for each step and its verdict, and how it reads its files.
extension ScenarioCommands {
    /// Prints the step's line (its JSON object with --json); returns the line as text either way.
    @discardableResult
    static func printStep(_ result: ScenarioRunner.StepResult, _ step: ScenarioStep, total: Int, json: Bool) -> String {
        let time = String(format1: result.elapsed)
        let padded = String(repeating: " ", count: max(0, 6 - time.count)) + time
        let line = "[\(padded)s] \(result.number)/\(total) \(step.text): \(result.detail)"
        if json {
            let step: [String: JSONValue] = [
                "step": .integer(Int64(result.number)), "kind": .string(result.kind), "ok": .bool(result.ok), "detail": .string(result.detail),
                "elapsedSeconds": .number(milliseconds(result.elapsed)), "durationSeconds": .number(milliseconds(result.duration)),
            ]
            Output.out(JSONValue.object(result.fields.merging(step) { $1 }).text)
        } else {
            Output.out(line)
        }
        return line
    }

    static func printVerdict(
        json: Bool, runner: ScenarioRunner, verdict: String, line: String, failed: Int, expectations: Int, failedStep: Int?
    ) {
        guard json else {
            Output.out("verdict: " + line)
            return
        }
        var fields: [String: JSONValue] = [
            "verdict": .string(verdict), "seed": .integer(Int64(runner.seed)), "expectations": .integer(Int64(expectations)),
            "failedExpectations": .integer(Int64(failed)), "failedStep": failedStep.map { .integer(Int64($0)) } ?? .null,
            "elapsedSeconds": .number(milliseconds(runner.elapsed)), "message": .string(line),
        ]
        if let report = runner.lastReport {
            fields["report"] = .object([
                "recorded": .integer(Int64(report.recorded)), "stored": .integer(Int64(report.stored)),
                "lost": .integer(Int64(report.lost.count)), "duplicated": .integer(Int64(report.duplicated.count)),
                "orderKept": .bool(report.orderKept), "outstanding": .integer(Int64(report.outstandingTransfers)),
            ])
        }
        Output.out(JSONValue.object(fields).text)
    }

    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    // MARK: - Input

    /// The file's bytes (stdin for `-`), refused past the parser's limit before it is all read.
    static func read(_ file: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        do throws(SystemError) {
            let fd = file == "-" ? FileDescriptor(adopting: 0) : try FileDescriptor.open(file, O_RDONLY)
            defer { if file == "-" { _ = fd.release() } }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while bytes.count <= Scenario.Limits.fileBytes {
                let n = try fd.readBlocking(into: &chunk, "read(\(file))")
                if n == 0 { return bytes }
                bytes += chunk[0..<n]
            }
        } catch {
            throw ControlError.invalid("\(file): \(String(cString: strerror(error.errno)))")
        }
        throw ControlError.invalid("\(file): the file is over \(Scenario.Limits.fileBytes) bytes")
    }

    /// An app named in the header: relative to the scenario file's directory, and an executable file.
    static func executable(_ path: String, _ key: String, relativeTo file: String) throws -> String {
        var resolved = path
        if !path.hasPrefix("/"), file != "-", let slash = file.lastIndex(of: "/") { resolved = String(file[...slash]) + path }
        resolved = Filesystem.absolutePath(resolved)
        guard Filesystem.kind(of: resolved) == .regular, access(resolved, X_OK) == 0 else {
            throw ControlError.invalid("\(file): \"\(key)\": \(resolved) is not an executable file")
        }
        return resolved
    }
}

extension ScenarioStep {
    /// The step as the file wrote it, in words: `record [5, 50]`, `kill phone-app after [0, 500] ms`.
    var text: String {
        switch self {
        case let .record(count, distance): "record \(count.text)" + (distance.map { " of \($0) km" } ?? "")
        case let .send(from, count): "send \(count.text) from the \(from.rawValue)"
        case let .kill(target, after): "kill \(target.rawValue)" + (after.map { " after \($0.text) ms" } ?? "")
        case let .relaunch(target): "relaunch \(target.rawValue)"
        case let .link(up): up ? "link up" : "link down"
        case let .clockAdvance(_, text): "clock-advance \(text)"
        case let .app(device, action): device == .phone ? "app \(action)" : "watch app \(action)"
        case let .jetsam(device): device == .phone ? "jetsam" : "jetsam the watch app"
        case let .sleep(ms): "sleep \(ms.text) ms"
        case let .waitApp(device, state, _): device == .phone ? "wait app \(state)" : "wait watch app \(state)"
        case .drain: "drain"
        case let .expect(expectation): "expect \(expectation.text)"
        }
    }
}

extension String {
    /// One decimal: `12.3`.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
