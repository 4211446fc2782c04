import Storage

extension Handshake {
    /// What a device says when the link comes up (`hello`, `welcome`), built in this one place from its
    /// session's state: who it is and its pairing from the store, and the receive cursor of every lane
    /// (`resume`), where the counterpart resumes each, and the application contexts' versions each way. What the store does not hold — the app's
    /// version, whether it is installed and active, its complication — the caller says. Used by the
    /// session (`Session.makeHandshake`, which adds what is pending) and by watch-os, which says the
    /// watch's hello from the same store, read-only, while the watch app is not running.
    ///
    /// `unreadableCursorIsZero`: watch-os's look at a store the app owns takes 0 for a cursor it cannot
    /// read (say, a store written before that lane existed: the phone then resends what it holds, which
    /// the receiver drops as duplicates); the session's own store must answer.
    package init(
        store database: Database, role: DeviceRole, deviceID: String, pairing: Pairing, appVersion: String,
        appInstalled: Bool, appActive: Bool, complicationEnabled: Bool, unreadableCursorIsZero: Bool = false
    ) throws {
        self.init(
            role: role, deviceID: deviceID, pairingID: pairing.pairingID, appVersion: appVersion, resumeSeq: 0,
            appInstalled: appInstalled, appActive: appActive)
        self.complicationEnabled = complicationEnabled
        let peer = pairing.counterpartID(of: role)
        // The application contexts' versions, each way, for this counterpart only.
        if let sent = try? SessionStore.context(database, .sent), sent.peerDeviceID == peer { contextVersion = sent.version }
        if let held = try? SessionStore.context(database, .received), held.peerDeviceID == peer { contextHeld = held.version }
        for lane in TransferLane.allCases {
            do {
                resume[lane] = try SessionStore.receiveCursor(database, peer: peer, lane: lane)
            } catch {
                guard unreadableCursorIsZero else { throw error }
                resume[lane] = 0
            }
        }
    }
}
