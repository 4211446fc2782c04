import PairTesting
import Storage
import Testing

@testable import Connectivity

/// The handshake is built in one place (`Handshake(store:…)`): the session's and watch-os's hello carry
/// every lane's receive cursor from the store.
@Suite struct HandshakeFromStoreTests {
    static let pairing = Pairing(pairingID: "P", phoneDeviceID: "F", watchDeviceID: "W", phoneLinkSocket: "/tmp/link.sock", pairedAt: 0)

    func hello(_ database: Database, unreadableCursorIsZero: Bool = false) throws -> Handshake {
        try Handshake(
            store: database, role: .watch, deviceID: "W", pairing: Self.pairing, appVersion: "1.4", appInstalled: true, appActive: false,
            complicationEnabled: true, unreadableCursorIsZero: unreadableCursorIsZero)
    }

    @Test func everyLanesCursorComesFromTheStore() throws {
        let database = try Database(path: makeTemporaryDirectory("handshake") + "/s.sqlite")
        try Migrator.migrate(database, SessionStore.migrations)
        let cursors: [TransferLane: Int64] = [.userInfo: 7, .complication: 3, .file: 2]
        try database.transaction {
            for (lane, seq) in cursors { try SessionStore.setReceiveCursor(database, peer: "F", seq: seq, lane: lane) }
            // Another peer's cursors are not this pairing's.
            try SessionStore.setReceiveCursor(database, peer: "OTHER", seq: 99)
        }
        let said = try hello(database)
        for lane in TransferLane.allCases { #expect(said.resume[lane] == cursors[lane], "\(lane)") }
        #expect((said.role, said.deviceID, said.pairingID, said.appVersion) == (.watch, "W", "P", "1.4"))
        #expect(said.appInstalled && !said.appActive && said.complicationEnabled)
        #expect(try Handshake(decoding: said.encoded) == said)
    }

    @Test func anUnreadableCursorThrowsUnlessItIsTakenAsZero() throws {
        // A store without the session's tables: the session's own must answer; watch-os's look takes 0.
        let database = try Database(path: makeTemporaryDirectory("handshake") + "/s.sqlite")
        #expect(throws: (any Error).self) { try hello(database) }
        let fallback = try hello(database, unreadableCursorIsZero: true)
        for lane in TransferLane.allCases { #expect(fallback.resume[lane] == 0) }
    }
}
