import Connectivity
import Control
import DeviceRuntime
import Glibc
import JSONText
import Posix
import Storage

/// The watch's simulated watchOS (`watch-os`): the mirror of `phone-os`. It launches the watch app
/// (`watch-agent`) on demand and reclaims it, keeps the watch's clock whether the app runs or not, and —
/// while the app is not running — holds the watch's side of the link itself, the way watchOS keeps the
/// Bluetooth link to the iPhone for an app that is not running.
///
/// How the system learns what is pending (docs/protocol.md, "watch-os"): while the app is down, watch-os
/// connects to the phone's `link.sock` and says `hello` for the watch — built from the WatchConnectivity
/// service's store, read-only: its receive cursors (durable: the phone drops only what the watch has),
/// `appActive` false, nothing pending. Then:
///
/// - the phone's `welcome` says it has transfers queued for the watch (`pendingTransfers`), or the phone
///   sends the watch content on the link (a userInfo, complication, application context or file frame):
///   the app is launched in the background (reason `phone-content`, what watchOS hands an app as a
///   `WKWatchConnectivityRefreshBackgroundTask`), and watch-os closes its connection first — nothing it
///   read is acknowledged, so the phone sends it all again to the app;
/// - the watch's own queue holds transfers for the phone and the phone is in range: the app is launched
///   in the background to send them (reason `watch-transfer`: the service runs in the app's process);
/// - nothing pending: the connection stays open (the phone in range; the watch app is not reachable to
///   the phone, as its hello said it is not active) — or, when phone-os declined it, it is tried again
///   after the backoff (at most a second).
///
/// A message from the phone never launches the watch app: the phone's session refuses it at once with
/// `notReachable` 7007, as the watch app is not in the foreground (Apple's rule). A watch app deleted
/// (`runway watch app uninstall`, `WatchOSInstall.swift`) is never launched: its hello says so, and the
/// phone holds what it has for it until it is installed again.
public final class WatchOS: DeviceOperatingSystem {
    /// The system's own connection to the phone while the app is not running.
    private var probe: SocketStream?
    private var probeTimer: EventLoop.TimerID?
    private var attempt = 0
    private let decoder = FrameDecoder()
    /// Whether the last attempt reached the phone (a listener answered): the watch in range.
    private(set) var phoneInRange = false
    /// What the phone last said it had pending for the watch, and when.
    private var lastWelcome: (transfers: Int64, at: Double?) = (0, nil)

    public init(options: Options) throws {
        try super.init(options: options, role: .watch, programName: "watch-os")
    }

    // MARK: - The watch's hooks

    override func appMayLaunch() { connectSoon(afterMilliseconds: 0) }

    override func appLaunched() {
        closeProbe("the app was launched: it connects itself")
        if let probeTimer { loop.cancel(probeTimer) }
        probeTimer = nil
    }

    override func appGone() {
        attempt = 0
        connectSoon(afterMilliseconds: 0)
    }

    override func closeLink() {
        if let probeTimer { loop.cancel(probeTimer) }
        probeTimer = nil
        closeProbe("watch-os shutting down")
    }

    override var launchRefusal: String? {
        WatchStoreReading.appInstalled(home: home) ? nil : "the watch app is not installed (runway watch app install)"
    }

    override func handleDeviceAppAction(_ action: String, _ request: ControlRequest) throws -> Bool {
        guard action == "install" || action == "uninstall" else { return false }
        try installAction(action)
        return true
    }

    override func decorate(_ reply: inout OSStatusReply) {
        reply.appInstalled = WatchStoreReading.appInstalled(home: home)
        reply.phoneInRange = phoneInRange
        reply.backgroundTasksCompleted = Int64(backgroundTasksCompleted)
    }

    override func statusWhileAppIsDown() throws -> StatusReply {
        let waiting = SessionStoreSnapshot.read(home: home)
        var status = StatusReply(
            role: "watch", pid: Int64(getpid()), activationState: "notActivated", paired: waiting.paired, linked: false, reachable: false,
            watchAppInstalled: waiting.appInstalled, outstandingUserInfoTransfers: waiting.outstanding,
            outbox: StatusReply.Outbox(depth: waiting.outstanding, inFlight: 0, lastSentTransfer: 0, lastAcknowledgedTransfer: 0, window: 0),
            other: [:])
        status.watchAppActive = false
        status.other = [
            "home": .string(home.path), "answeredBy": .string("watch-os"), "appState": .string(state.rawValue),
            "phoneInRange": .bool(phoneInRange),
            "waitingForApp": .object([
                "phonePendingTransfers": .integer(lastWelcome.transfers),
                "seenAt": lastWelcome.at.map { .string(Timestamp.iso8601($0)) } ?? .null,
            ]),
        ]
        if let pairing = waiting.pairingID { status.other["pairingId"] = .string(pairing) }
        return status
    }

    // MARK: - The system's connection to the phone

    func connectSoon(afterMilliseconds delay: UInt64) {
        if let probeTimer { loop.cancel(probeTimer) }
        probeTimer = loop.schedule(afterMilliseconds: delay) { [weak self] in
            guard let self else { return }
            self.probeTimer = nil
            self.connect()
        }
    }

    private func retryLater() {
        guard childPID == 0 else { return }
        let base = min(UInt64(1000), UInt64(20) << UInt64(min(attempt, 16)))
        attempt += 1
        connectSoon(afterMilliseconds: base / 2 + UInt64.random(in: 0...(base / 2)))
    }

    func closeProbe(_ reason: String) {
        guard let probe else { return }
        self.probe = nil
        probe.onClose = nil
        probe.close(.localClose(reason))
        logger.debug("os.link-closed", ["reason": reason])
    }

    private func setInRange(_ inRange: Bool) {
        guard inRange != phoneInRange else { return }
        phoneInRange = inRange
        logger.info("os.phone-range", ["inRange": inRange])
    }

    private func connect() {
        guard childPID == 0, probe == nil else { return }
        let store = WatchStoreReading.read(home: home)
        guard let hello = store.hello else {
            // Not paired (or no store yet: the app never ran): nothing to connect to.
            setInRange(false)
            return retryLater()
        }
        let fd: FileDescriptor
        do {
            fd = try UnixSocket.connect(to: try UnixSocketAddress(path: store.phoneLinkSocket))
        } catch {
            setInRange(false)
            return retryLater()
        }
        setInRange(true)
        // The watch's own queue: the app sends it (the service runs in its process) — if it is installed.
        if store.outstanding > 0, store.appInstalled {
            fd.close()
            return launchInBackground(reasonKey: "watch-transfer", reason: "the watch has \(store.outstanding) transfer(s) queued for the phone, in range")
        }
        let stream = SocketStream(descriptor: fd, loop: loop)
        probe = stream
        stream.onRead = { [unowned self] stream in self.read(stream) }
        stream.onClose = { [unowned self] _, reason in
            self.probe = nil
            self.logger.debug("os.link-closed", ["reason": "\(reason)"])
            self.retryLater()
        }
        stream.start()
        stream.write(Frame(.hello, hello.encoded).encoded)
    }

    private func read(_ stream: SocketStream) {
        let (frames, error) = decoder.decodeAll(from: stream.inbound)
        for frame in frames {
            switch frame.type {
            case .welcome:
                attempt = 0
                let welcome = try? Handshake(decoding: frame.payload)
                lastWelcome = (welcome?.pendingTransfers ?? 0, wallClockSeconds())
                if let pending = welcome?.pendingTransfers, pending > 0 {
                    return launchInBackground(
                        reasonKey: AppLaunch.watchConnectivityReason, reason: "the phone has \(pending) transfer(s) pending for the watch app")
                }
            case .userInfo, .complicationUserInfo, .applicationContext, .fileBegin:
                return launchInBackground(
                    reasonKey: AppLaunch.watchConnectivityReason, reason: "the phone sent the watch app content (\(frame.type))")
            case .error:
                let refusal = (try? ErrorFrame.decode(frame.payload))?.message ?? "?"
                logger.info("os.link-refused", ["reason": refusal])
            default:
                // appState (phone-os declining: the phone app is not running), acknowledgements, a
                // workout frame: nothing that launches the app.
                break
            }
        }
        if let error {
            closeProbe("malformed frames from the phone: \(error)")
            retryLater()
        }
    }

    /// Launches the app in the background for what is pending, unless the user force-quit it or it is
    /// backing off after failures (then the phone stays connected and the next attempt decides again).
    private func launchInBackground(reasonKey: String, reason: String) {
        if let notInstalled = launchRefusal {
            // The connection stays: the phone knows from its hello that the app is gone, and holds it.
            declined += 1
            logger.info("os.no-launch", ["reason": notInstalled, "for": reason])
            return
        }
        let refusal = forceQuit ? "force-quit by the user: no background launch until the app is opened" : backingOff
        if let refusal {
            declined += 1
            logger.info("os.no-launch", ["reason": refusal, "for": reason])
            closeProbe("declined")
            attempt = max(attempt, 6)
            return retryLater()
        }
        launch(.background, reason: reason, reasonKey: reasonKey, connection: nil)
        if childPID == 0 { retryLater() }
    }
}

/// What watch-os reads of the WatchConnectivity service's store (read-only, never written: the store
/// is the service's) to speak for the watch while its app is not running.
struct WatchStoreReading {
    var hello: Handshake?
    var phoneLinkSocket = ""
    var outstanding: Int64 = 0
    /// The service's record of the watch app (`app.installed`): installed unless it was deleted.
    var appInstalled = true

    static func appInstalled(home: DeviceHome) -> Bool {
        guard home.hasStore, let database = try? Database(path: home.storePath, readOnly: true) else { return true }
        defer { database.close() }
        return ((try? SessionStore.stateValue(database, "app.installed")) ?? nil) != "0"
    }

    static func read(home: DeviceHome) -> WatchStoreReading {
        var reading = WatchStoreReading()
        guard home.hasStore, let database = try? Database(path: home.storePath, readOnly: true) else { return reading }
        defer { database.close() }
        reading.appInstalled = ((try? SessionStore.stateValue(database, "app.installed")) ?? nil) != "0"
        guard let pairing = try? SessionStore.pairing(database), let deviceID = try? SessionStore.deviceID(database, role: .watch) else { return reading }
        reading.phoneLinkSocket = pairing.phoneLinkSocket
        let phone = pairing.phoneDeviceID
        func flag(_ key: String, _ fallback: Bool) -> Bool { ((try? SessionStore.stateValue(database, key)) ?? nil).map { $0 == "1" } ?? fallback }
        var hello = Handshake(
            role: .watch, deviceID: deviceID, pairingID: pairing.pairingID,
            appVersion: ((try? SessionStore.stateValue(database, "app.version")) ?? nil) ?? "",
            resumeSeq: (try? SessionStore.receiveCursor(database, peer: phone)) ?? 0, appInstalled: flag("app.installed", true), appActive: false)
        hello.complicationEnabled = flag("app.complication", false)
        hello.complicationResumeSeq = (try? SessionStore.receiveCursor(database, peer: phone, lane: .complication)) ?? 0
        hello.fileResumeSeq = (try? SessionStore.receiveCursor(database, peer: phone, lane: .file)) ?? 0
        reading.hello = hello
        reading.outstanding = SessionStoreSnapshot.read(database).outstandingAllLanes
        return reading
    }
}
