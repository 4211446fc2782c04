import Control
import JSONText
import Posix
import RunWayDomain

// MARK: - The phone's Alerts view and the remembered groups (#15, #16)

extension RunWayPhoneApp {
    /// `alerts`, `groups`, `group-set`, `groups-reset`; false for any other command.
    func registerAlertCommands(on router: ControlRouter) {
        let groups = GroupStateStore(database: database)
        router.on(ControlCommands.Alerts.self) { [unowned self] _ in
            // A flat array in arrival order (the flight's, then the alert's). It stays JSON: each item is
            // `FlightAlert`'s `--json` form from its one declaration (`Codable` and its `RecordFormat`: a
            // moment in ISO 8601, `value` to one decimal); a reply type in Control, which knows no app
            // types, would declare its fields a second time.
            var writer = JSONWriter(capacity: 4096)
            writer.bytes.append(0x5B)
            var first = true
            try store.forEachAlert { alert, flightID in
                if !first { writer.bytes.append(0x2C) }
                first = false
                alert.writeJSON(to: &writer, flightID: flightID)
            }
            writer.bytes.append(0x5D)
            return JSONReply(try JSONValue(parsing: writer.bytes))
        }
        router.on(ControlCommands.Groups.self) { args in
            let view = try Self.groupView(args.view)
            return GroupsReply(view: view.rawValue, remembered: try groups.remembered(view))
        }
        router.on(ControlCommands.GroupSet.self) { [unowned self] args in
            let view = try Self.groupView(args.view)
            let key = args.key
            let expanded = args.expanded
            try groups.remember(view, key: key, expanded: expanded)
            logger.info("ui.group-toggled", ["view": view.rawValue, "key": key, "expanded": expanded])
            return GroupSetReply(view: view.rawValue, key: key, expanded: expanded)
        }
        router.on(ControlCommands.GroupsReset.self) { args in
            let view = try Self.groupView(args.view)
            return GroupsResetReply(view: view.rawValue, forgotten: Int64(try groups.reset(view)))
        }
    }

    /// The catalogue allows only the views there are (a test checks the two lists agree).
    static func groupView(_ name: String) throws -> GroupExpansion.View {
        guard let view = GroupExpansion.View(rawValue: name) else { throw ControlError("the phone has no view \(OneLine.quote(name))") }
        return view
    }
}
