import Connectivity
import Storage

/// What watch-os reads of the WatchConnectivity service's store (read-only, never written: the store
/// is the service's) to speak for the watch while its app is not running.
struct WatchStoreReading {
    var hello: Handshake?
    var pairing: Pairing?
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
        reading.pairing = pairing
        reading.hello = hello
        reading.outstanding = SessionStoreSnapshot.read(database).outstandingAllLanes
        reading.contextPending = session.sentContextPending()
        reading.hello?.pendingContext = reading.contextPending
        return reading
    }
}

/// watch-os's side of the link's handshake, for the watch (`LinkHandshake`): the hello read from the
/// service's store, the welcome checked against the pairing, and the pair's secret from the home — so
/// the system's connection proves itself as the app's does, and believes only the paired phone.
final class WatchOSLinkParty: LinkHandshakeParty {
    let hello: Handshake
    let pairing: Pairing
    let secrets: PairingSecrets

    init(hello: Handshake, pairing: Pairing, home: DeviceHome) {
        self.hello = hello
        self.pairing = pairing
        secrets = PairingSecrets(home: home.path)
    }

    func makeHandshake() throws -> Handshake { hello }

    func validate(_ welcome: Handshake) -> WCError? {
        guard welcome.role == .phone, welcome.pairingID == pairing.pairingID, welcome.deviceID == pairing.phoneDeviceID else {
            return WCError(.deviceNotPaired, "\(welcome.deviceID) is not the phone this watch is paired with")
        }
        return nil
    }

    func pairingSecret() throws(WCError) -> PairingSecret {
        do {
            return try secrets.read(pairingID: pairing.pairingID)
        } catch {
            throw WCError(.deviceNotPaired, "\(error): pair the homes again (runway pair --phone P --watch W)")
        }
    }
}
