import Connectivity
import Control
import JSONText
import Posix
import Storage
import PropertyLists
import RunWayDomain

/// `runway dump [--home H]`: what a store's binary payloads say, for people who open it with `sqlite3`
/// and find property lists in BLOBs. Reads the store directly (a daemon may be running: SQLite's WAL
/// lets a reader in) and changes nothing.
enum DumpCommand {
    static let command = CLI.Command(
        path: ["dump"], synopsis: "[--home H] [--limit N] [--json]",
        summary: """
            Decodes the payloads in a device's stores: the outbox (transfers not yet acknowledged), the userInfo
            delivered to the RunWay app that were not flights (in its container), the quarantine, and the application contexts. Each payload
            is shown as JSON (data as base64, dates as ISO 8601). At most N rows per table (default 1000).
            Works on a phone's or a watch's home, with or without its daemon running; without --home, on the
            registered pair's phone.
            """,
        specs: [
            .option("home", "H", "the device's home (a phone's or a watch's; default: the registered pair's phone)"),
            .option("limit", "N", "rows per table (default 1000)"), CLI.jsonSpec,
        ],
        positionals: 0,
        run: run)

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let home = try CLI.homePath(parsed, .phone)
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
        let session = SessionStoreReader(database: database)
        let outbox = try session.outstandingEntries(.userInfo, limit: limit).map { entry -> JSONValue in
            .object(["transferId": .integer(entry.seq), "userInfo": payload(entry.payload)])
        }
        // The userInfo the RunWay app took that were not flights are in the app's own store.
        var received: [JSONValue] = []
        for bundle in [RunWayStore.bundleIDs.phone, RunWayStore.bundleIDs.watch] {
            let appStore = RunWayStore.path(container: home + "/apps/" + bundle)
            guard Filesystem.kind(of: appStore) == .regular else { continue }
            let app = try Database(path: appStore)
            defer { app.close() }
            for entry in try RunWayStoreReader(database: app).receivedUserInfo(limit: limit) {
                received.append(.object(["transferId": .integer(entry.transferSeq), "from": .string(entry.sourceDevice), "userInfo": payload(entry.payload)]))
            }
        }
        let quarantine = try session.quarantined(limit: limit).map { entry -> JSONValue in
            .object([
                "id": .integer(entry.id), "transferId": .integer(entry.seq), "reason": .string(entry.reason),
                "userInfo": payload(entry.payload),
            ])
        }
        let contexts = try session.contexts().map { entry -> JSONValue in
            .object(["direction": .string(entry.direction.rawValue), "version": .integer(entry.context.version), "context": payload(entry.context.payload)])
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
