import OSServices
import AppHost
import Control
import Connectivity
import JSONText
import Posix

/// The phone's simulated iOS (`phone-os`): it owns the phone's `link.sock` and launches the RunWay app
/// (`phone-daemon`) through the systemd socket-activation protocol, the way iOS launches an app in the
/// background when a transfer arrives for it, and reclaims it when its background time is up.
///
/// How the system learns what is pending (docs/protocol.md, "phone-os"): while the app is not running,
/// phone-os accepts the watch's connection itself and reads (`MSG_PEEK`, nothing consumed) its `hello`,
/// which carries `pendingTransfers`, the watch's outbox, and `pendingMessages`, messages waiting for the
/// link. Something pending → the app is launched with the listener and that connection (named `link` and
/// `connection`): the app reads the same `hello` and the drain starts, or the message is delivered.
/// Nothing pending → the connection is closed and nothing is launched; the watch retries (its backoff is
/// at most a second), so a run recorded later launches the app on the next attempt. The rule itself is
/// `PhoneOSLaunchRule`.
package final class PhoneOS: DeviceOperatingSystem {
    private var listener: FileDescriptor?
    private var listenerIdentity: Filesystem.Identity?
    /// The app installed or not, the phone locked or not (`PhoneOSDevice.swift`).
    var device: PhoneDeviceState
    /// What the watch last said it had pending for the app (`status` while the app does not run).
    var lastHello: (transfers: Int64, messages: Int64, at: Double?) = (0, 0, nil)
    /// Connections accepted while the app is down, whose `hello` is awaited.
    private var peeking: [Int32: (fd: FileDescriptor, deadline: UInt64)] = [:]

    package init(options: Options) throws {
        device = PhoneDeviceState.load(DeviceHome(path: options.home, role: .phone))
        try super.init(options: options, role: .phone, programName: "phone-os")
    }

    // MARK: - The phone's hooks

    override var ownedSocketPaths: [String] { [home.linkSocketPath] }

    override func openLink() throws {
        let link = try UnixSocket.listen(at: try home.linkSocketAddress())
        listener = link
        listenerIdentity = Filesystem.identity(of: home.linkSocketPath)
    }

    override func appMayLaunch() { watchListener(true) }
    override func appLaunched() { watchListener(false) }
    override func appGone() { watchListener(true) }

    /// The watch knocked within the last 3 s: in range, retrying at most a second apart.
    override var counterpartNearby: Bool { lastHello.at.map { wallClockSeconds() - $0 < 3 } ?? false }

    override func launchDescriptors(connection: FileDescriptor?) -> [(Int32, String)]? {
        guard let listener else { return nil }
        return [(listener.rawValue, "link")] + (connection.map { [($0.rawValue, "connection")] } ?? [])
    }

    override func closeLink() {
        for (_, entry) in peeking { entry.fd.close() }
        peeking.removeAll()
        if let listener {
            listener.close()
            if let listenerIdentity, Filesystem.identity(of: home.linkSocketPath) == listenerIdentity { unlink(home.linkSocketPath) }
        }
    }

    override var launchRefusal: String? { deviceLaunchRefusal }
    /// The watch connecting while the app is suspended: the session that answers it is in the app.
    override var wakeSources: [(descriptor: Int32, reason: String, key: String)] {
        listener.map { [($0.rawValue, "the watch connected to the phone", "link")] } ?? []
    }
    override var launchArguments: [String] { phoneLaunchArguments }
    override var appEnvironment: [String: String] { device.appVersion.map { [DeviceEnvironment.appVersion: $0] } ?? [:] }

    override func registerDeviceCommands(on router: ControlRouter) {
        router.on(ControlCommands.DeviceLock.self) { [unowned self] args in
            try lockAction(args.state == "lock")
            return status()
        }
        router.on(ControlCommands.DeviceReboot.self) { [unowned self] _ in
            try rebootAction()
            return status()
        }
        router.on(ControlCommands.SwitchWatch.self) { [unowned self] args in try switchWatch(args.watch) }
    }

    override func handleDeviceAppAction(_ action: String, version: String?) throws -> Bool {
        if action == "install" || action == "uninstall" {
            try installAction(action, version: version)
            return true
        }
        guard version == nil else { throw ControlError.invalid("--version goes with install only") }
        return false
    }

    override func decorate(_ reply: inout OSStatusReply) {
        reply.appInstalled = device.appInstalled
        reply.appVersion = installedVersion
        reply.locked = device.locked
        reply.lockedAfterReboot = device.lockedAfterReboot
        // The system in force; phone-os defers nothing of its own (the phone app's session does: its
        // `status`), and iOS's background app refresh is not simulated (docs/system-timing.md).
        let timing = SystemTiming.current.timing
        reply.systemTiming = .object(["system": .string(timing.text), "deferred": .integer(0), "byReason": .object([:]), "waiting": .integer(0)])
    }

    /// `status` while phone-os answers it: the app's state and what waits for it, as the OS knows them.
    override func statusWhileAppIsDown() throws -> StatusReply {
        let waiting = try SessionStoreSnapshot.readForStatus(home: home)
        var status = StatusReply(
            role: "phone", pid: Int64(getpid()), activationState: "notActivated", paired: waiting.paired, linked: false, reachable: false,
            watchAppInstalled: waiting.watchAppInstalled, outstandingUserInfoTransfers: waiting.outstanding,
            outbox: StatusReply.Outbox(depth: waiting.outstanding, inFlight: 0, lastSentTransfer: 0, lastAcknowledgedTransfer: 0, window: 0),
            other: [:])
        status.other = [
            "home": .string(home.path), "answeredBy": .string("phone-os"), "appState": .string(state.rawValue), "app": appIdentity,
            "waitingForApp": .object([
                "watchPendingTransfers": .integer(lastHello.transfers), "watchPendingMessages": .integer(lastHello.messages),
                "seenAt": lastHello.at.map { .string(Timestamp.iso8601($0)) } ?? .null,
            ]),
        ]
        if let pairing = waiting.pairingID { status.other["pairingId"] = .string(pairing) }
        status.other.merge(DeviceHost.watchRows(waiting.watches, active: waiting.activeWatch, parked: waiting.parked)) { $1 }
        if let system { status.other["healthWorkouts"] = .integer(try system.health.count()) }
        status.other["applicationContextPending"] = .bool(waiting.contextPending)
        return status
    }

    // MARK: - The watch's connection while the app is down

    /// While the app is down, phone-os accepts on the link itself; while it runs, the app does.
    func watchListener(_ on: Bool) {
        guard let listener else { return }
        if on {
            loop.register(listener.rawValue, interest: .readable) { [unowned self] _ in self.acceptPending() }
        } else {
            loop.unregister(listener.rawValue)
        }
    }

    private func acceptPending() {
        guard let listener, childPID == 0 else { return }
        while let fd = try? UnixSocket.accept(from: listener) {
            guard let peer = try? UnixSocket.peerCredentials(of: fd), peer.uid == getuid() else { fd.close(); continue }
            let deadline = loop.nowNanoseconds + 5_000_000_000
            peeking[fd.rawValue] = (fd, deadline)
            loop.register(fd.rawValue, interest: .readable) { [unowned self] _ in self.peek(fd.rawValue) }
            loop.schedule(afterMilliseconds: 5000) { [weak self] in self?.dropPeek(fd.rawValue, "no hello within 5 s") }
        }
    }

    private func dropPeek(_ raw: Int32, _ reason: String) {
        guard let entry = peeking.removeValue(forKey: raw) else { return }
        loop.unregister(raw)
        entry.fd.close()
        logger.info("os.connection-closed", ["reason": reason])
    }

    /// Reads the watch's `hello` without consuming it.
    private func peek(_ raw: Int32) {
        guard let entry = peeking[raw] else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let received = try? entry.fd.receive(into: &buffer, peek: true)
        if received == .wouldBlock { return }
        guard case let .bytes(n)? = received else {
            dropPeek(raw, "the watch closed the connection")
            return
        }
        let hello: Handshake
        let helloLength: Int
        switch buffer.withUnsafeBytes({ PeekedHello(UnsafeRawBufferPointer(rebasing: $0[..<n])) }) {
        case .incomplete: return retryPeekLater(raw)
        case let .refused(reason): return dropPeek(raw, reason)
        case let .hello(peeked, frameLength):
            hello = peeked
            helloLength = frameLength
        }
        peeking[raw] = nil
        loop.unregister(raw)
        lastHello = (hello.pendingTransfers, hello.pendingMessages, wallClockSeconds())
        if childPID != 0 {
            // The app was launched meanwhile (another connection): the watch reconnects to it.
            entry.fd.close()
            return
        }
        let store = SessionStoreSnapshot.read(home: home)
        switch PhoneOSLaunchRule.decide(
            hello, forceQuit: forceQuit, backingOff: backingOff, installed: device.appInstalled, lockedAfterReboot: device.lockedAfterReboot,
            activeWatch: store.activeWatch, pairedWatches: store.watches.map(\.watchDeviceID),
            own: store.watchAppInstalled
                ? PhoneOSLaunchRule.OwnOutbox(transfers: store.outstandingAllLanes, context: store.contextPending) : PhoneOSLaunchRule.OwnOutbox())
        {
        case let .launch(reasonKey, reason):
            launch(.background, reason: reason, reasonKey: reasonKey, connection: entry.fd)
        case let .decline(reason, error):
            declined += 1
            logger.info(
                "os.no-launch",
                [
                    "reason": reason, "pendingTransfers": hello.pendingTransfers,
                    "pendingMessages": hello.pendingMessages, "refusedWith": error.map { "\($0.code.rawValue)" } ?? "-",
                ])
            if let error {
                PhoneOSLaunchRule.refuse(entry.fd, helloLength: helloLength, error)
            } else {
                PhoneOSLaunchRule.tellInstalled(entry.fd, helloLength: helloLength)
            }
            entry.fd.close()
        }
    }

    private func retryPeekLater(_ raw: Int32) {
        // Part of the hello so far: look again shortly rather than spin on a readable socket.
        loop.setInterest(raw, [])
        loop.schedule(afterMilliseconds: 5) { [weak self] in
            guard let self, self.peeking[raw] != nil else { return }
            self.loop.setInterest(raw, .readable)
        }
    }
}
