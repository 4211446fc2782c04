import Connectivity
import Storage

/// What watch-os reads of the WatchConnectivity service's store (read-only, never written: the store
/// is the service's) to speak for the watch while its app is not running.
struct WatchStoreReading {
    var hello: Handshake?
    var phoneLinkSocket = ""
    var outstanding: Int64 = 0
    /// The service's record of the watch app (`app.installed`): installed unless it was deleted.
    var appInstalled = true

    static func appInstalled(home: DeviceHome) -> Bool {
        guard home.hasStore, let database = try? Database(path: home.storePath, readOnly: true) else { return true }
        defer { database.close() }
        return ((try? SessionStore.stateValue(database, "app.installed")) ?? nil) != "0"
    }

    static func read(home: DeviceHome) -> WatchStoreReading {
        var reading = WatchStoreReading()
        guard home.hasStore, let database = try? Database(path: home.storePath, readOnly: true) else { return reading }
        defer { database.close() }
        reading.appInstalled = ((try? SessionStore.stateValue(database, "app.installed")) ?? nil) != "0"
        guard let pairing = try? SessionStore.pairing(database), let deviceID = try? SessionStore.deviceID(database, role: .watch) else { return reading }
        reading.phoneLinkSocket = pairing.phoneLinkSocket
        func flag(_ key: String, _ fallback: Bool) -> Bool { ((try? SessionStore.stateValue(database, key)) ?? nil).map { $0 == "1" } ?? fallback }
        // The watch app is not running: not active, whatever it last said.
        reading.hello = try? Handshake(
            store: database, role: .watch, deviceID: deviceID, pairing: pairing,
            appVersion: ((try? SessionStore.stateValue(database, "app.version")) ?? nil) ?? "",
            appInstalled: flag("app.installed", true), appActive: false, complicationEnabled: flag("app.complication", false),
            unreadableCursorIsZero: true)
        reading.outstanding = SessionStoreSnapshot.read(database).outstandingAllLanes
        return reading
    }
}
