import Storage

/// Which month groups a list shows expanded (#16, the same rule for the Logbook and the Alerts view):
/// a group the user toggled keeps the state they gave it; a group never touched is expanded only if it
/// is the newest. A one-call override (`--expand`) expands more on top.
public enum GroupExpansion {
    /// The views that remember their groups.
    public enum View: String, Sendable, CaseIterable {
        case logbook
        case alerts
    }

    public static func isExpanded(_ key: String, isNewest: Bool, remembered: [String: Bool]) -> Bool {
        remembered[key] ?? isNewest
    }

    /// Whether `key` is a month as the views name them: `YYYY-MM`.
    public static func isMonthKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 7, bytes[4] == 0x2D, bytes[0..<4].allSatisfy({ (0x30...0x39).contains($0) }),
            let month = Int(String(key.suffix(2))), (1...12).contains(month), bytes[5...].allSatisfy({ (0x30...0x39).contains($0) })
        else { return false }
        return true
    }
}

/// The phone's memory of the user's toggles (`ui_group_state`).
public struct GroupStateStore {
    public let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func remembered(_ view: GroupExpansion.View) throws -> [String: Bool] {
        let query = try database.statement(literal: "SELECT key, expanded FROM ui_group_state WHERE view = ?")
        defer { query.reset() }
        try query.bind(view.rawValue, at: 1)
        var states: [String: Bool] = [:]
        while try query.step() { states[query.string(at: 0)] = query.int(at: 1) != 0 }
        return states
    }

    public func remember(_ view: GroupExpansion.View, key: String, expanded: Bool) throws {
        let upsert = try database.statement(
            literal: """
                INSERT INTO ui_group_state (view, key, expanded) VALUES (?, ?, ?)
                ON CONFLICT (view, key) DO UPDATE SET expanded = excluded.expanded
                """)
        try upsert.bind(view.rawValue, at: 1)
        try upsert.bind(key, at: 2)
        try upsert.bind(expanded ? 1 : 0, at: 3)
        try upsert.run()
    }

    /// Forgets every toggle of `view`; returns how many there were.
    @discardableResult
    public func reset(_ view: GroupExpansion.View) throws -> Int {
        let delete = try database.statement(literal: "DELETE FROM ui_group_state WHERE view = ?")
        try delete.bind(view.rawValue, at: 1)
        try delete.run()
        return database.changes
    }
}
