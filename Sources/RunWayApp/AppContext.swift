import Control
import Foundation
import JSONText
import Posix
import Storage
@_exported import RunWayDomain

/// What a RunWay app is given by whoever runs it on a device (RunWay's executables compose the device
/// with the app): its thread's loop and log, the control socket it answers its own commands on, the
/// device's clock, where its container is. Its session is `WCSession.default` and its notification
/// centre `UNUserNotificationCenter.current()` — the public APIs, as on iOS.
package struct AppContext {
    /// The app's thread (the device's delegate queue): timers and work deferred to the end of a turn.
    package var loop: EventLoop
    package var logger: Logger
    /// The device's control socket: the app registers its commands here, before the socket opens.
    package var router: ControlRouter
    /// The connections of attached UIs (RunWay's home screen), for events.
    package var control: ControlServer
    /// The device's time now (`runway clock`): what the app shows and counts with.
    package var deviceNow: () -> Double
    /// The app's container (`HOME/apps/BUNDLE-ID`).
    package var container: String
    /// Stops the device because something the app depends on is gone (its store unlinked): exit 1.
    package var fail: (_ event: String, _ reason: String) -> Void
    /// Adds the app's fields to the device's `status`.
    package var contributeStatus: (@escaping (inout StatusReply) throws -> Void) -> Void
    /// Hands the app's store to the device's fault injection (`store-limit`, `--max-store-pages`).
    package var registerStore: (Database) -> Void

    package init(
        loop: EventLoop, logger: Logger, router: ControlRouter, control: ControlServer, deviceNow: @escaping () -> Double,
        container: String, fail: @escaping (String, String) -> Void,
        contributeStatus: @escaping (@escaping (inout StatusReply) throws -> Void) -> Void, registerStore: @escaping (Database) -> Void
    ) {
        self.loop = loop
        self.logger = logger
        self.router = router
        self.control = control
        self.deviceNow = deviceNow
        self.container = container
        self.fail = fail
        self.contributeStatus = contributeStatus
        self.registerStore = registerStore
    }
}

extension AppContext {
    /// Where the app's container is, and where Foundation's own directory APIs put its documents and
    /// temporary files (inside it: the OS started the process so): `status`'s `container`.
    package var containerJSON: JSONValue {
        let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first?.path ?? ""
        return .object([
            "path": .string(container), "documents": .string(documents),
            "temporary": .string(FileManager.default.temporaryDirectory.path),
        ])
    }
}

/// The app's store as the app opens it (where it is, `RunWayStore` in `RunWayDomain`, which the CLI reads).
extension RunWayStore {
    /// Every table of the app's: flights and what hangs off them, live runs, the UI's group state,
    /// settings, the update check's day.
    package static let migrations =
        FlightStore.migrations + AppUpdateService.migrations + [AppFiles.migration]
        + [
            Migration(
                "app.settings.1",
                """
                -- The app's settings (its language, the simulated App Store's answer): one JSON value per key.
                CREATE TABLE app_settings (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                ) STRICT;
                """),
            Migration(
                "app.complication.1",
                """
                -- The watch app's complication: the newest complication data the phone sent (what the watch
                -- face shows) and how many updates arrived. A plain userInfo never lands here.
                CREATE TABLE complication_data (
                    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                    payload BLOB NOT NULL,
                    transfer_seq INTEGER NOT NULL,
                    updates INTEGER NOT NULL,
                    received_at REAL NOT NULL
                ) STRICT;
                """),
            // Issue 51: a transfer delivered again (the app's commit done, the session's cursor not) is
            // the one the app has. Per sender and lane, the highest transfer the app stored, moved in the
            // batch's own transaction (`AppConnectivity.alreadyStored`).
            Migration(
                "app.received-marks.1",
                """
                CREATE TABLE received_marks (
                    source_device TEXT NOT NULL,
                    lane TEXT NOT NULL,
                    through INTEGER NOT NULL,
                    PRIMARY KEY (source_device, lane)
                ) STRICT, WITHOUT ROWID;
                """),
        ] + RunHealthLedger.migrations

    /// Opens (creating) the app's store in `container` and migrates it. A store file unlinked under the
    /// app stops the device (`fail`): nothing more is committed to it, nothing acknowledged.
    package static func open(container: String, logger: Logger, fail: @escaping (String, String) -> Void) throws -> Database {
        let path = path(container: container)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let database = try Database(path: path, pageSize: pageSize)
        try Migrator.migrate(database, migrations)
        // The phone saves every received batch here, on the device's loop: copying the log into the
        // file must not stall it (it did, inline in one commit in ~1,000 pages, since the flights moved
        // into the app's store).
        try database.checkpointInBackground()
        database.onUnlinked = { why in fail("store.unlinked", why) }
        logger.info("startup.app-store-opened", ["path": path])
        return database
    }
}
