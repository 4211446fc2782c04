import Control
import JSONText
import Posix
import RunWayDomain
import TerminalViews

// MARK: - `runway phone|watch run start|sample|status|stop|replay`: a live run, sample by sample, with GPWS

extension Render {
    static let liveRun: [Render] = [
        .of(ControlCommands.RunStart.self) { reply, _, _ in
            "started \(reply.runId ?? "") (\(reply.mode ?? "") \(reply.target ?? ""))"
                + (reply.mirroring.map { "; mirroring \($0.state) (assumed started: \($0.assumedStarted ? "yes" : "no"))" } ?? "")
        },
        .of(ControlCommands.RunSample.self) { reply, _, _ in
            let alerts = (reply.trace ?? []).compactMap(\.alert)
            return "gpws \(reply.gpws ?? "")" + (alerts.isEmpty ? "" : "; alerts: " + alerts.joined(separator: ", "))
        },
        // The status object as aligned `key: value` lines.
        .of(ControlCommands.RunStatus.self) { reply, _, _ in
            guard let fields = reply.json.objectValue else { return reply.json.text }
            let width = (fields.keys.map(TextWidth.of).max() ?? 0) + 2
            return fields.keys.sorted().map { key in (key + ":").padding(width) + (fields[key]!.stringValue ?? fields[key]!.text) }.joined(separator: "\n")
        },
        // On the phone, a saved run's post-run summary (#26): the Logbook's figures, with no delete.
        .of(ControlCommands.RunStop.self) { reply, _, context in
            guard context.device == .phone, reply.saved == "saved" else { return reply.id }
            let id = reply.id
            return FlightSummaryText.render(try context.client().send(ControlCommands.Flight { $0.id = id }).value, calendar: .current())
        },
        .of(ControlCommands.RunReplay.self) { reply, _, _ in "\(reply.id) alerts=\(reply.alerts)" },
    ]
}

/// One sample from `--t`, `--distance-m`, `--pace` and `--hr`, or the array in `--json-file` (its shape
/// checked here, before connecting: the daemon checks it against the run).
extension ControlCommands.RunSample: CLIPrepared {
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws {
        let parsed = context.parsed
        let single = ["t", "distance-m", "pace", "hr"].filter { parsed.value($0) != nil }
        if let path = parsed.value("json-file") {
            guard single.isEmpty else { throw ControlError.invalid("give either --json-file or --t/--distance-m/--pace/--hr, not both") }
            let bytes: [UInt8]
            do { bytes = path == "-" ? try SessionCLI.readStandardInput() : try Filesystem.readFile(path) } catch {
                throw ControlError.invalid("cannot read \(path): \(error)")
            }
            guard let json = try? JSONValue(parsing: bytes), let rows = json.arrayValue else {
                throw ControlError.invalid("\(path) must hold a JSON array of [t, distanceM, paceSecPerKm, hr]")
            }
            do { _ = try LiveRun.batch(rows) } catch { throw ControlError.invalid("\(path): \(error.description)") }
            arguments["samples"] = json
            return
        }
        guard single.count == 4 else { throw ControlError.invalid("a sample needs --t, --distance-m, --pace and --hr (or --json-file)") }
        func number(_ name: String) throws -> Double {
            guard let value = parsed.value(name).flatMap(Double.init), value.isFinite else {
                throw ControlError.invalid("--\(name) must be a number, not \(OneLine.quote(parsed.value(name) ?? ""))")
            }
            return value
        }
        let paceText = parsed.value("pace")!
        guard let pace = paceText == "0" ? 0 : GPWSTarget.parsePace(paceText) else {
            throw ControlError.invalid("--pace must be 0 or M:SS from 2:00 to 20:00, not \(OneLine.quote(paceText))")
        }
        arguments["samples"] = .array([.array([.number(try number("t")), .number(try number("distance-m")), .number(pace), .number(try number("hr"))])])
    }
}
