import AppHost
import Connectivity
import Posix
import RunWayDomain
import Storage

/// What a scenario pair's stores hold, read from the files themselves, whether or not the app that wrote
/// them runs.
extension ScenarioPair {
    /// Transfers still queued, in every lane (userInfo, complication, files), in both devices'
    /// WatchConnectivity stores — counted by the session's own code (`SessionStoreReader`) — and each
    /// application context not yet acknowledged (content like any other, issue 50), one each.
    func outstanding() throws -> Int { try sum { try $0.outstandingTransfers() + ($0.sentContextPending() ? 1 : 0) } }

    /// Transfers both devices' sessions have queued since the pair was made, in every lane (the last
    /// sequence number each lane assigned, `SessionStoreReader.queuedTransfers`): what the expectations
    /// are held over.
    func transfersQueued() throws -> Int { try sum { try $0.queuedTransfers() } }

    /// A count of each device's WatchConnectivity store, read from the file, summed over both.
    private func sum(_ count: (SessionStoreReader) throws -> Int) throws -> Int {
        var total = 0
        for home in [phone, watch] where Filesystem.kind(of: home.storePath) == .regular {
            let database = try Database(path: home.storePath)
            defer { database.close() }
            total += try count(SessionStoreReader(database: database))
        }
        return total
    }

    /// The phone app's container: RunWay's, or yours — named by its bundle id, else its file's name, as
    /// phone-os names it.
    var phoneContainer: String {
        guard let app = scenario.phoneApp else { return phone.path + "/apps/" + RunWayStore.bundleIDs.phone }
        if let id = scenario.phoneBundleId { return phone.path + "/apps/" + id }
        let name = String(app.split(separator: "/").last ?? "app")
        return phone.path + "/apps/" + (AppContainer.problem(bundleID: name) == nil ? name : "app")
    }
    /// RunWay's phone store (RunWay's app, or RunWay's own phone-daemon given as `phoneApp`).
    var phoneAppStore: String { RunWayStore.path(container: phoneContainer) }
    var watchAppStore: String { RunWayStore.path(container: watch.path + "/apps/" + RunWayStore.bundleIDs.watch) }

    /// The runs the phone app stored, in arrival order: RunWay's Logbook, or what your app's `phoneStore`
    /// query lists (its store opened read-only). None yet: no store, nothing stored.
    func storedFlightIDs() throws -> [String] {
        let path = scenario.phoneStore.map { phoneContainer + "/" + $0.path } ?? phoneAppStore
        guard Filesystem.kind(of: path) == .regular else { return [] }
        if let store = scenario.phoneStore, store.ids == nil { return try Self.lines(path) }
        let database = try Database(path: path, readOnly: scenario.phoneStore != nil)
        defer { database.close() }
        // An app killed while it first opened its store leaves one without its tables yet: nothing stored.
        guard let ownQuery = scenario.phoneStore?.ids else {
            let reader = RunWayStoreReader(database: database)
            return try reader.hasTables() ? try reader.flightIDs() : []
        }
        guard try Self.hasAnyTable(database) else { return [] }
        // Your app's store: the query the scenario gives.
        let query = try database.prepare(ownQuery)
        var ids: [String] = []
        while try query.step() { ids.append(query.string(at: 0)) }
        return ids
    }

    /// A text file's lines, the ids an app appended one per line; a last line without its newline is one
    /// the app was killed while writing, not yet saved, and left out.
    static func lines(_ path: String) throws -> [String] {
        let bytes = try Filesystem.readFile(path)
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()  // what follows the last newline: empty, or a line cut short
        return lines.filter { !$0.isEmpty }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The scenario's userInfo ids that RunWay's app on `device` received, in arrival order.
    func receivedIDs(on device: ScenarioStep.Device) throws -> [String] {
        let path = device == .phone ? phoneAppStore : watchAppStore
        guard Filesystem.kind(of: path) == .regular else { return [] }
        let database = try Database(path: path)
        defer { database.close() }
        return try RunWayStoreReader(database: database).receivedUserInfo(limit: Int.max).compactMap { $0.userInfo?["scenarioTransfer"]?.stringValue }
    }

    /// Whether the store has any table yet (your app's, killed while it first opened it, may have none).
    static func hasAnyTable(_ database: Database) throws -> Bool {
        try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table'") > 0
    }

    /// Every SQLite store of both devices, for the checker's integrity check.
    var storePaths: [String] {
        // Your app's store is only read (the check opens a store for writing, and would make it WAL).
        [phone.storePath, phone.path + "/os.sqlite", phoneAppStore, watch.storePath, watch.path + "/os.sqlite", watchAppStore]
            .filter { Filesystem.kind(of: $0) == .regular }
    }
}
