import Connectivity
import Control
import OSServices
import AppHost
import JSONText
import Posix
import Storage

// MARK: - The OS's own services: the clock and the notification centre, whether the app runs or not

extension DeviceOperatingSystem {
    /// Opens the OS's store (`HOME/os.sqlite`) and starts its services on phone-os's loop: what fell due
    /// while nothing ran is delivered now, the rest on a timer as device time reaches it — the app need
    /// not run for a reminder to be delivered.
    func startServices() throws {
        try container.prepare()
        let database = try SystemServices.openStore(home: home.path)
        let services = try SystemServices(database: database, loop: loop, logger: logger)
        services.onPublished.append { [unowned self] event in
            for connection in control?.attachedClients ?? [] { connection.sendEvent(event) }
        }
        services.onDelivered.append { [unowned self] delivered in
            let appRunning = !(control?.attachedClients ?? []).isEmpty
            for item in delivered { logger.info("os.notification-delivered", ["id": item.id, "appRunning": appRunning]) }
        }
        // The user opened a notification: the app comes to the foreground (launched if need be), where its
        // centre takes the response; if it cannot be opened, the response goes (no launch will take it).
        services.onNotificationOpened.append { [unowned self] response in
            guard state != .foreground else { return }
            do {
                try appAction("open")
            } catch {
                services.heldResponses.removeAll()
                logger.warning("os.notification-open-failed", ["id": response.notification.id, "reason": "\(error)"])
            }
        }
        system = services
        services.publishClock(home: home.path)
        services.deliverDue()
    }

    /// What the app is launched with besides its descriptors: where its device's home is, the OS's
    /// socket (its clock, its notification centre), and its container, where Foundation's own
    /// directory APIs resolve (`AppContainer`).
    var launchEnvironment: [String: String] {
        var variables = container.environment
        variables[DeviceEnvironment.home] = home.path
        variables[DeviceEnvironment.osSocket] = home.osControlSocketPath
        variables[DeviceEnvironment.container] = container.path
        variables[DeviceEnvironment.bundleID] = options.bundleID
        variables[DeviceEnvironment.role] = home.role == .watch ? "watch" : "phone"
        if !options.isRunWay {
            variables.merge(options.deviceEnvironment) { $1 }
            variables.merge(appEnvironment) { $1 }
        }
        return variables
    }

    /// The OS's commands: the clock, the notification centre (`runway phone|watch notifications`), what the
    /// running app asks of its OS (every `OSRequest`, served by `SystemServices.register`), the app's
    /// attached connection, and `status` with what the OS knows while the app does not run.
    func registerServices(on router: ControlRouter) {
        guard let system else { return }
        system.onClockChanged.append { [unowned self] reading in self.tellApps(clock: reading) }
        system.register(on: router)
        router.on(ControlCommands.OSAttachApp.self) { [unowned self] (_, connection: ControlConnection) in
            try connection.attach()
            connection.reply(Self.clockEvent(system.clock.reading))
            // The app's state now: an `app open|close` made while it was starting counts.
            connection.sendEvent(.object(["event": .string("appState"), "state": .string(state.rawValue)]))
        }
        router.on(ControlCommands.Status.self) { [unowned self] _ in try statusWhileAppIsDown() }
    }

    /// The clock as the app's client keeps it: its mode, and the offset or the instant.
    static func clockEvent(_ reading: DeviceClock.Reading) -> OSClockEvent {
        OSClockEvent(mode: reading.mode.rawValue, offsetSeconds: reading.offsetSeconds, now: reading.now)
    }

    private func tellApps(clock reading: DeviceClock.Reading) {
        let event = Self.clockEvent(reading).json
        for connection in control?.attachedClients ?? [] { connection.sendEvent(event) }
    }
}

/// What the WatchConnectivity service's store says while the app is not running, read by the OS
/// (read-only, never written: the store is the service's).
struct SessionStoreSnapshot {
    var paired = false
    var pairingID: String?
    var watchAppInstalled = false
    /// This device's own app, as its session last recorded it.
    var appInstalled = true
    /// Queued for the counterpart: userInfo transfers, and every lane.
    var outstanding: Int64 = 0
    var outstandingAllLanes: Int64 = 0
    /// The active watch's device id, and every paired watch's.
    var activeWatch: String?
    var watches: [PairedWatch] = []
    /// Transfers queued for each inactive watch.
    var parked: [String: Int] = [:]
    /// The application context this device sent, not yet acknowledged by the counterpart.
    var contextPending = false

    static func read(home: DeviceHome) -> SessionStoreSnapshot {
        guard home.hasStore, let database = try? Database(path: home.storePath, readOnly: true) else { return SessionStoreSnapshot() }
        defer { database.close() }
        return read(database)
    }

    /// For `status` while the app is not running: the same, but a store that exists and cannot be read
    /// (or its queue counted) is one line, exit 1 — never a queue of 0 that was not read, which a script
    /// waiting for the queue to drain would believe.
    static func readForStatus(home: DeviceHome) throws -> SessionStoreSnapshot {
        guard home.hasStore else { return SessionStoreSnapshot() }
        let database: Database
        do { database = try Database(path: home.storePath, readOnly: true) } catch {
            throw ControlError("could not read the WatchConnectivity store \(home.storePath): \(error)")
        }
        defer { database.close() }
        var snapshot = read(database)
        do { snapshot.outstanding = Int64(try SessionStoreReader(database: database).outstanding(.userInfo)) } catch {
            throw ControlError("could not count the queue in \(home.storePath): \(error)")
        }
        return snapshot
    }

    static func read(_ database: Database) -> SessionStoreSnapshot {
        var snapshot = SessionStoreSnapshot()
        if let pairing = try? SessionStore.pairing(database) {
            snapshot.paired = true
            snapshot.pairingID = pairing.pairingID
            snapshot.activeWatch = pairing.watchDeviceID
        }
        snapshot.watches = (try? PairedWatches.all(database)) ?? []
        snapshot.parked = (try? PairedWatches.parkedCounts(database)) ?? [:]
        let session = SessionStoreReader(database: database)
        snapshot.watchAppInstalled = session.counterpartAppInstalled()
        snapshot.appInstalled = session.appInstalled()
        snapshot.outstanding = Int64((try? session.outstanding(.userInfo)) ?? 0)
        snapshot.outstandingAllLanes = TransferLane.allCases.reduce(0) { total, lane in
            total + Int64((try? session.outstanding(lane)) ?? 0)
        }
        snapshot.contextPending = session.sentContextPending()
        return snapshot
    }
}
