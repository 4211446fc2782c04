import Storage

/// The Health promise (APP_SPEC E.8, #28), checked: every finished run is in exactly one device's
/// Health store, exactly once, and no workout there stands for a run that did not finish. A workout
/// stands for the run its `HKExternalUUID` metadata names, else the run its uuid is.
package struct HealthReport: Sendable {
    /// Whether the check ran (the history named finished runs).
    package var checked = false
    package var phoneWorkouts = 0
    package var watchWorkouts = 0
    /// Finished runs in neither store.
    package var missing: [String] = []
    /// Finished runs saved more than once (on both devices, or twice on one).
    package var duplicated: [String] = []
    /// Workouts standing for no finished run.
    package var unexplained: [String] = []
    package var problems: [String] = []
    /// Each finished run's saves, counted in each device's store (issue 51: exactly one in all).
    package var saves: [String: HealthSaves] = [:]

    package var isClean: Bool { missing.isEmpty && duplicated.isEmpty && unexplained.isEmpty && problems.isEmpty }

    package var violations: [String] {
        var lines: [String] = []
        if !missing.isEmpty { lines.append("health: runs saved to no Health store (\(missing.count)): " + missing.joined(separator: " ")) }
        if !duplicated.isEmpty {
            lines.append(
                "health: runs saved more than once (\(duplicated.count); phone \(phoneWorkouts) + watch \(watchWorkouts) workouts): "
                    + duplicated.map { "\($0) (\(saves[$0]?.text ?? "?"))" }.joined(separator: " "))
        }
        if !unexplained.isEmpty { lines.append("health: workouts of no finished run (\(unexplained.count)): " + unexplained.joined(separator: " ")) }
        lines.append(contentsOf: problems.map { "health: " + $0 })
        return lines
    }

    /// Checks `runs` (their ids, upper case) against the workouts of the phone's and the watch's OS
    /// stores (`HOME/os.sqlite`; a store not there holds none).
    package static func check(runs: [String], phoneStore: String, watchStore: String) -> HealthReport {
        var report = HealthReport()
        report.checked = true
        var saves: [String: HealthSaves] = [:]
        for (path, isPhone) in [(phoneStore, true), (watchStore, false)] {
            let rows: [String]
            do { rows = try workouts(path) } catch {
                report.problems.append("could not read \(path): \(error)")
                continue
            }
            if isPhone { report.phoneWorkouts = rows.count } else { report.watchWorkouts = rows.count }
            for run in rows {
                if isPhone { saves[run, default: HealthSaves()].phone += 1 } else { saves[run, default: HealthSaves()].watch += 1 }
            }
        }
        let finished = Set(runs)
        report.missing = runs.filter { saves[$0] == nil }
        report.duplicated = runs.filter { (saves[$0]?.total ?? 0) > 1 }
        report.unexplained = saves.keys.filter { !finished.contains($0) }.sorted()
        report.saves = saves
        return report
    }

    /// The run each workout of the store at `path` stands for (none if the store or its table is not there).
    static func workouts(_ path: String) throws -> [String] {
        guard let database = try? Database(path: path, readOnly: true) else { return [] }
        defer { database.close() }
        guard try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'health_workouts'") == 1 else { return [] }
        let query = try database.prepare("SELECT upper(coalesce(json_extract(metadata, '$.HKExternalUUID'), uuid)) FROM health_workouts")
        var runs: [String] = []
        while try query.step() { runs.append(query.string(at: 0)) }
        return runs
    }
}

/// One run's Health saves: the workouts standing for it in the phone's store and in the watch's.
package struct HealthSaves: Sendable, Equatable {
    package var phone = 0
    package var watch = 0
    package init(phone: Int = 0, watch: Int = 0) {
        self.phone = phone
        self.watch = watch
    }
    package var total: Int { phone + watch }
    /// `phone 1 + watch 1`
    package var text: String { "phone \(phone) + watch \(watch)" }
}
