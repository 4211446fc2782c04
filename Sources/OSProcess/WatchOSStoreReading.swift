import Connectivity
import Storage

/// What watch-os reads of the WatchConnectivity service's store (read-only, never written: the store
/// is the service's) to speak for the watch while its app is not running.
struct WatchStoreReading {
    var hello: Handshake?
    var phoneLinkSocket = ""
    var outstanding: Int64 = 0
    /// The watch app's application context not yet acknowledged by the phone (content for it, issue 50).
    var contextPending = false
    /// The service's record of the watch app (`app.installed`): installed unless it was deleted.
    var appInstalled = true

    static func appInstalled(home: DeviceHome) -> Bool {
        guard home.hasStore, let database = try? Database(path: home.storePath, readOnly: true) else { return true }
        defer { database.close() }
        return SessionStoreReader(database: database).appInstalled()
    }

    static func read(home: DeviceHome) -> WatchStoreReading {
        var reading = WatchStoreReading()
        guard home.hasStore, let database = try? Database(path: home.storePath, readOnly: true) else { return reading }
        defer { database.close() }
        let session = SessionStoreReader(database: database)
        reading.appInstalled = session.appInstalled()
        // The watch app is not running: not active, whatever it last said.
        guard let (hello, pairing) = session.handshake(role: .watch) else { return reading }
        reading.phoneLinkSocket = pairing.phoneLinkSocket
        reading.hello = hello
        reading.outstanding = SessionStoreSnapshot.read(database).outstandingAllLanes
        reading.contextPending = session.sentContextPending()
        reading.hello?.pendingContext = reading.contextPending
        return reading
    }
}
