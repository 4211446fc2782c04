import Control
import JSONText
import Posix
import Storage

/// RunWay 1.4's update notice (`AppUpdateService.checkForUpdate` plus the view's `checkForAppUpdate`),
/// as one rule over injected time, lookup and run state (APP_SPEC F.3):
///
/// 1. running → skip (nothing asked, nothing recorded); 2. a check already succeeded on today's local
/// date → skip; 3. ask; 4. a failed or unusable answer is silent and does not use up the day; 5. record
/// the day — before the comparison and before the second running check, as the seed's code does; 6. not
/// newer (Foundation's `.numeric`) → nothing; 7. running now → the alert is dropped, the day spent (the
/// pinned race, #58); 8. otherwise the alert.
public final class AppUpdateService {
    public enum Outcome: String, Sendable {
        case skippedToday = "skipped-today", skippedRunning = "skipped-running", failed
        case notNewer = "not-newer", update, suppressedRunning = "suppressed-running"
    }

    public struct Update: Equatable, Sendable {
        public let version: String
        /// `trackViewUrl`, verbatim.
        public let storeURL: String
    }

    public struct Report: Sendable {
        public let outcome: Outcome
        public let store: String?
        public let installed: String
        public let lastCheckedAt: Double?
        public let reason: String?
        public var update: Update? { outcome == .update ? storeUpdate : nil }
        let storeUpdate: Update?
    }

    /// What the lookup endpoint gave: the body of an answer, or a failure (offline).
    public enum Answer: Sendable {
        case body([UInt8])
        case failed(String)
    }

    public static let lookupURL = "https://itunes.apple.com/lookup?bundleId=HaroldSong.Project.RunWay&country=kr"
    public static let bundleID = "HaroldSong.Project.RunWay"

    public static let migrations: [Migration] = [
        Migration(
            "app.update.1",
            """
            -- The app's own defaults (UserDefaults): the update check's last successful day.
            CREATE TABLE app_defaults (
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            ) STRICT;
            """)
    ]

    public let installed: String
    private let database: Database?
    private let logger: Logger
    /// The device's time (seconds since 1970) and its local calendar date.
    public var now: () -> Double = { 0 }
    public var localDate: (Double) -> CivilDate = { CivilDate(daysSince1970: Int64(($0 / 86_400).rounded(.down))) }
    /// `runViewModel.isRunning`: a phone-led run in progress.
    public var isRunning: () -> Bool = { false }
    /// Asks the endpoint; the answer comes later, on the caller's loop.
    public var lookup: (@escaping (Answer) -> Void) -> Void = { $0(.failed("no endpoint")) }
    public private(set) var lastCheckedAt: Double?
    private var waiting: [(Report) -> Void] = []

    public init(installed: String, database: Database?, logger: Logger) throws {
        self.installed = installed
        self.database = database
        self.logger = logger
        if let database {
            let query = try database.statement(literal: "SELECT value FROM app_defaults WHERE key = 'update.lastCheckedAt'")
            defer { query.reset() }
            if try query.step() { lastCheckedAt = Double(query.string(at: 0)) }
        }
    }

    /// Whether a lookup is on its way.
    public var isChecking: Bool { !waiting.isEmpty }

    /// Runs the rule; `done` gets the outcome (a check that arrives while a lookup is on its way shares it).
    public func check(_ done: @escaping (Report) -> Void) {
        if isRunning() {
            logger.info("update.check-skipped", ["reason": "running"])
            return done(report(.skippedRunning))
        }
        if let last = lastCheckedAt, localDate(last) == localDate(now()) {
            logger.info("update.check-skipped", ["reason": "checked today", "lastCheckedAt": Timestamp.iso8601(last)])
            return done(report(.skippedToday))
        }
        waiting.append(done)
        guard waiting.count == 1 else { return }
        lookup { [weak self] answer in self?.finish(answer) }
    }

    private func finish(_ answer: Answer) {
        let waiters = waiting
        waiting = []
        let result = report(for: answer)
        for waiter in waiters { waiter(result) }
    }

    private func report(for answer: Answer) -> Report {
        let update: Update
        switch Self.parse(answer) {
        case let .failure(reason):
            logger.info("update.check-failed", ["reason": reason.text])
            return report(.failed, reason: reason.text)
        case let .success(found):
            update = found
        }
        do { try record(now()) } catch {
            logger.warning("update.day-not-saved", ["error": "\(error)"])
        }
        guard AppVersion.isNewer(update.version, than: installed) else {
            logger.info("update.not-newer", ["store": update.version, "installed": installed])
            return report(.notNewer, store: update)
        }
        guard !isRunning() else {
            logger.notice("update.suppressed", ["reason": "a run started while the lookup was on its way", "store": update.version])
            return report(.suppressedRunning, store: update)
        }
        logger.info("update.available", ["store": update.version, "installed": installed])
        return report(.update, store: update)
    }

    private func report(_ outcome: Outcome, store: Update? = nil, reason: String? = nil) -> Report {
        Report(
            outcome: outcome, store: store?.version, installed: installed, lastCheckedAt: lastCheckedAt,
            reason: reason, storeUpdate: store)
    }

    private func record(_ instant: Double) throws {
        if let database {
            let upsert = try database.statement(
                literal: """
                    INSERT INTO app_defaults (key, value) VALUES ('update.lastCheckedAt', ?)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """)
            try upsert.bind(String(instant), at: 1)
            try upsert.run()
        }
        lastCheckedAt = instant
    }

    public struct Reason: Error, Sendable {
        public let text: String
        init(_ text: String) { self.text = text }
    }

    /// The seed's guards: a JSON object with `results[0].version` a string and `results[0].trackViewUrl`
    /// a URL; anything else is a silent failure.
    public static func parse(_ answer: Answer) -> Result<Update, Reason> {
        let bytes: [UInt8]
        switch answer {
        case let .failed(reason): return .failure(Reason(reason))
        case let .body(body): bytes = body
        }
        guard let json = try? JSONValue(parsing: bytes), json.objectValue != nil else { return .failure(Reason("invalid-json")) }
        guard let results = json["results"]?.arrayValue else { return .failure(Reason("no-results")) }
        guard let first = results.first else { return .failure(Reason("empty-results")) }
        guard let version = first["version"]?.stringValue else { return .failure(Reason("no-version")) }
        guard let url = first["trackViewUrl"]?.stringValue, isURL(url) else { return .failure(Reason("no-track-view-url")) }
        return .success(Update(version: version, storeURL: url))
    }

    /// What `URL(string:)` would take, roughly: a scheme, then no spaces or control characters.
    static func isURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        guard scheme.first!.isASCII, scheme.first!.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return false }
        return text.count > scheme.count + 1 && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
    }
}

extension AppUpdateService.Report {
    /// As `update-check` answers it.
    public var reply: UpdateCheckReply {
        UpdateCheckReply(
            outcome: outcome.rawValue, store: store, installed: installed, lastCheckedAt: lastCheckedAt.map { Timestamp.iso8601($0) }, reason: reason)
    }
}
