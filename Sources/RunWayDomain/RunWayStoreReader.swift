import PropertyLists
import Storage

/// RunWay's store as others read it — `runway dump`, `runway scenario run`, the harness, and the app's own
/// `received` — through the queries of the module that makes its tables (`FlightStore.migrations`): no
/// one else writes a `SELECT` on them (`PackageRulesTests`). The caller opens the store (read-only where
/// it must not make it a WAL store) and closes it.
package struct RunWayStoreReader {
    package let database: Database

    package init(database: Database) { self.database = database }

    /// Whether the app has made its tables yet: an app killed while it first opened its store leaves
    /// one without them (nothing stored).
    package func hasTables() throws -> Bool {
        try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'flights'") > 0
    }

    /// How many flights the Logbook holds.
    package func flightCount() throws -> Int { try FlightStore(database: database).count() }

    /// The flights' ids, in arrival order.
    package func flightIDs() throws -> [String] {
        let query = try database.prepare("SELECT id FROM flights ORDER BY arrival")
        var ids: [String] = []
        while try query.step() { ids.append(query.string(at: 0)) }
        return ids
    }

    /// One userInfo dictionary the app took that was not a flight: which transfer, from which device,
    /// its encoded dictionary, when it arrived (wall clock seconds).
    package struct ReceivedUserInfo {
        package var transferSeq: Int64
        package var sourceDevice: String
        package var payload: [UInt8]
        package var receivedAt: Double

        /// The dictionary, nil if it cannot be decoded.
        package var userInfo: [String: PropertyListValue]? { try? PropertyListCodec.decodeDictionary(payload) }
    }

    /// The userInfo dictionaries the app took that were not flights, in arrival order, at most `limit`.
    package func receivedUserInfo(limit: Int = 100_000) throws -> [ReceivedUserInfo] {
        guard try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'received_userinfo'") > 0 else {
            return []
        }
        let query = try database.prepare("SELECT transfer_seq, source_device, payload, received_at FROM received_userinfo ORDER BY arrival LIMIT ?")
        try query.bind(limit, at: 1)
        var result: [ReceivedUserInfo] = []
        while try query.step() {
            result.append(
                ReceivedUserInfo(
                    transferSeq: query.int64(at: 0), sourceDevice: query.string(at: 1), payload: query.blob(at: 2), receivedAt: query.double(at: 3)))
        }
        return result
    }

    /// How many of them there are.
    package func receivedUserInfoCount() throws -> Int64 { try database.scalarInt("SELECT count(*) FROM received_userinfo") }
}
