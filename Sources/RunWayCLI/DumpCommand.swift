import Connectivity
import Control
import JSONText
import Posix
import Storage
import PropertyLists
import RunWayDomain

/// `runway dump --home H`: what a store's binary payloads say, for people who open it with `sqlite3`
/// and find property lists in BLOBs. Reads the store directly (a daemon may be running: SQLite's WAL
/// lets a reader in) and changes nothing.
enum DumpCommand {
    static let command = CLI.Command(
        path: ["dump"], synopsis: "--home H [--limit N] [--json]",
        summary: """
            Decodes the payloads in a device's stores: the outbox (transfers not yet acknowledged), the userInfo
            delivered to the RunWay app that were not flights (in its container), the quarantine, and the application contexts. Each payload
            is shown as JSON (data as base64, dates as ISO 8601). At most N rows per table (default 1000).
            Works on a phone's or a watch's home, with or without its daemon running.
            """,
        specs: [.option("home", "H", "the device's home (a phone's or a watch's)"), .option("limit", "N", "rows per table (default 1000)"), CLI.jsonSpec],
        positionals: 0,
        run: run)

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let home = try parsed.required("home")
        let limit = try parsed.integer("limit", default: 1000, range: 1...1_000_000)!
        let path = DeviceHome(path: home, role: .phone).storePath
        guard Filesystem.kind(of: path) == .regular else {
            throw ControlError.invalid("\(home) has no store (\(path)): not a device home")
        }
        let database = try Database(path: path)
        defer { database.close() }
        func payload(_ bytes: [UInt8]) -> JSONValue {
            (try? PropertyListCodec.decodeDictionary(bytes)).map(\.json) ?? .object(["undecodable": .string(Base64.encode(bytes))])
        }
        func rows(_ sql: String, _ body: (Statement) -> JSONValue) throws -> [JSONValue] {
            let query = try database.prepare(sql)
            try query.bind(limit, at: 1)
            var result: [JSONValue] = []
            while try query.step() { result.append(body(query)) }
            return result
        }
        let acked = try database.scalarInt("SELECT acked_seq FROM cx_outbox_state")
        let outbox = try rows("SELECT seq, payload FROM cx_outbox WHERE seq > \(acked) ORDER BY seq LIMIT ?") {
            .object(["transferId": .integer($0.int64(at: 0)), "userInfo": payload($0.blob(at: 1))])
        }
        // The userInfo the RunWay app took that were not flights are in the app's own store.
        var received: [JSONValue] = []
        for bundle in [RunWayStore.bundleIDs.phone, RunWayStore.bundleIDs.watch] {
            let appStore = RunWayStore.path(container: home + "/apps/" + bundle)
            guard Filesystem.kind(of: appStore) == .regular else { continue }
            let app = try Database(path: appStore)
            defer { app.close() }
            let query = try app.prepare("SELECT transfer_seq, source_device, payload FROM received_userinfo ORDER BY arrival LIMIT ?")
            try query.bind(limit, at: 1)
            while try query.step() {
                received.append(
                    .object(["transferId": .integer(query.int64(at: 0)), "from": .string(query.string(at: 1)), "userInfo": payload(query.blob(at: 2))]))
            }
        }
        let quarantine = try rows("SELECT id, seq, reason, payload FROM cx_quarantine ORDER BY id LIMIT ?") {
            .object([
                "id": .integer($0.int64(at: 0)), "transferId": .integer($0.int64(at: 1)), "reason": .string($0.string(at: 2)),
                "userInfo": payload($0.blob(at: 3)),
            ])
        }
        let contexts = try rows("SELECT direction, version, payload FROM cx_context ORDER BY direction LIMIT ?") {
            .object(["direction": .string($0.string(at: 0)), "version": .integer($0.int64(at: 1)), "context": payload($0.blob(at: 2))])
        }
        if parsed.has("json") {
            Output.out(
                JSONValue.object([
                    "outbox": .array(outbox), "received": .array(received), "quarantine": .array(quarantine),
                    "contexts": .array(contexts),
                ]).text)
            return 0
        }
        var lines: [String] = []
        for (title, items) in [
            ("outbox (not yet acknowledged)", outbox), ("received userInfo (not flights)", received),
            ("quarantine", quarantine), ("application contexts", contexts),
        ] {
            lines.append("\(title): \(items.count)")
            lines += items.map { "  " + $0.text }
        }
        Output.out(lines.joined(separator: "\n"))
        return 0
    }
}
