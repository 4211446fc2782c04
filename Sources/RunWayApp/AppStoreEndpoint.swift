import Control
import JSONText
import Posix
import RunWayDomain
import Storage

/// The phone's view of the App Store lookup endpoint: what the simulated network answers
/// (`runway appstore set|fail|show`), kept in the phone's home as device state (`app_settings`,
/// key `appstore`), with the lookups made so far and the last URL asked.
///
/// A lookup is asynchronous: the answer is handed over `delayMs` later, on the event loop, so it never
/// holds up a save, an attach reply or any other command.
final class AppStoreEndpoint {
    struct Setting: Equatable {
        /// The answer's body; nil: the lookup fails (offline, `network`).
        var body: String?
        var delayMilliseconds = 0
        var lookups = 0
        var lastURL: String?
    }

    private let database: Database
    private let loop: EventLoop
    private let logger: Logger
    private(set) var setting = Setting()

    init(database: Database, loop: EventLoop, logger: Logger) throws {
        self.database = database
        self.loop = loop
        self.logger = logger
        let query = try database.statement(literal: "SELECT value FROM app_settings WHERE key = 'appstore'")
        defer { query.reset() }
        if try query.step(), let saved = try? JSONValue(parsing: Array(query.string(at: 0).utf8)) {
            setting.body = saved["body"]?.stringValue
            setting.delayMilliseconds = saved["delayMs"]?.intValue ?? 0
            setting.lookups = saved["lookups"]?.intValue ?? 0
            setting.lastURL = saved["lastURL"]?.stringValue
        }
    }

    /// An iTunes-shaped, well-formed answer.
    static func answer(version: String, url: String) -> String {
        JSONValue.object([
            "resultCount": .integer(1),
            "results": .array([
                .object([
                    "version": .string(version), "trackViewUrl": .string(url), "bundleId": .string(AppUpdateService.bundleID),
                ])
            ]),
        ]).text
    }

    static let defaultStoreURL = "https://apps.apple.com/kr/app/runway/id6740000000"

    func set(body: String?, delayMilliseconds: Int) throws {
        var next = setting
        next.body = body
        next.delayMilliseconds = delayMilliseconds
        try save(next)
        logger.info("appstore.set", ["answer": body == nil ? "network failure" : "\(body!.utf8.count) bytes", "delayMs": delayMilliseconds])
    }

    /// Asks: counted and logged at once; the answer follows on the loop.
    func lookup(url: String, _ done: @escaping (AppUpdateService.Answer) -> Void) {
        var next = setting
        next.lookups += 1
        next.lastURL = url
        do { try save(next) } catch {
            logger.warning("appstore.not-saved", ["error": "\(error)"])
            setting = next
        }
        logger.info("appstore.lookup", ["url": url, "delayMs": next.delayMilliseconds])
        let answer: AppUpdateService.Answer = next.body.map { .body(Array($0.utf8)) } ?? .failed("network")
        _ = loop.schedule(afterMilliseconds: UInt64(next.delayMilliseconds)) { done(answer) }
    }

    /// As `appstore-*` answer it.
    var reply: AppStoreReply {
        AppStoreReply(
            answer: setting.body, mode: setting.body == nil ? "network" : "answer", delayMs: Int64(setting.delayMilliseconds),
            lookups: Int64(setting.lookups), lastURL: setting.lastURL)
    }

    private func save(_ next: Setting) throws {
        var fields: [String: JSONValue] = ["delayMs": .integer(Int64(next.delayMilliseconds)), "lookups": .integer(Int64(next.lookups))]
        if let body = next.body { fields["body"] = .string(body) }
        if let url = next.lastURL { fields["lastURL"] = .string(url) }
        let upsert = try database.statement(
            literal: """
                INSERT INTO app_settings (key, value) VALUES ('appstore', ?)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """)
        try upsert.bind(JSONValue.object(fields).text, at: 1)
        try upsert.run()
        setting = next
    }
}
