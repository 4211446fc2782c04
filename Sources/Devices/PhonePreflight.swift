import Control
import Connectivity
import JSONText
import Posix
import RunWayApp

// MARK: - The Pre-flight check and the versions (APP_SPEC C, F.5)

extension PhoneDaemon {
    /// What the session says now, for the Pre-flight rule. Before activation the session has not read
    /// its pairing: `paired` is false then, which is what the unguarded (legacy) rule trips on.
    var watchSnapshot: PreflightCheck.WatchSnapshot {
        // `runway pair` may have paired the phone while it runs; before activation the session has
        // read nothing yet, as on the device.
        if session.activationState == .activated { session.reloadPairing() }
        return PreflightCheck.WatchSnapshot(
            activated: session.activationState == .activated, paired: session.isPaired,
            watchAppInstalled: session.isWatchAppInstalled, reachable: session.isReachable)
    }

    /// `preflight`: `{"appleWatch":{"label","ok"},"heartRateMode":{"available"},"paired",…}` plus the versions.
    func preflight(_ request: ControlRequest) -> JSONValue {
        let rule: PreflightCheck.Rule = request[ControlCommands.Preflight.legacy] ? .legacy : .current
        let snapshot = watchSnapshot
        let result = PreflightCheck.evaluate(snapshot, rule: rule)
        var fields: [String: JSONValue] = [
            "appleWatch": .object(["label": .string(result.appleWatch.label), "ok": .bool(result.appleWatch.ok)]),
            "heartRateMode": .object(["available": .bool(result.heartRateModeAvailable)]),
            "paired": .bool(snapshot.paired), "watchAppInstalled": .bool(snapshot.watchAppInstalled),
            "reachable": .bool(snapshot.reachable), "activationState": .string(session.activationState.rawValue),
            "rule": .string(rule.rawValue),
        ]
        fields.merge(versionFields(peerKey: "watchAppVersion")) { _, new in new }
        if session.versionMismatch == true { fields["watchSentence"] = .string(UpdateTexts.watchSentence(language.effective)) }
        return .object(fields)
    }

    /// The `watchState` event every attached UI gets when the row may have changed: activation
    /// completed, the watch app's state or the link changed.
    func publishWatchState() {
        let clients = control.attachedClients
        guard !clients.isEmpty else { return }
        let snapshot = watchSnapshot
        let result = PreflightCheck.evaluate(snapshot)
        var fields: [String: JSONValue] = [
            "event": .string("watchState"),
            "appleWatch": .object(["label": .string(result.appleWatch.label), "ok": .bool(result.appleWatch.ok)]),
            "heartRateMode": .object(["available": .bool(result.heartRateModeAvailable)]),
            "activationState": .string(session.activationState.rawValue),
            "reachable": .bool(snapshot.reachable), "watchAppInstalled": .bool(snapshot.watchAppInstalled),
        ]
        fields.merge(versionFields(peerKey: "watchAppVersion")) { _, new in new }
        for client in clients { client.sendEvent(.object(fields)) }
    }
}

extension Session {
    /// Whether this app and the counterpart's differ (trailing `.0`s ignored); nil until a first
    /// handshake told us the counterpart's version.
    var versionMismatch: Bool? {
        counterpartAppVersion.map { AppVersion.differ(configuration.appVersion, $0) }
    }

    /// Logs `link.version-mismatch` once per established link whose versions differ. Never blocks.
    func logVersionMismatches(_ logger: Logger) {
        onLinkEstablished = { [unowned self] handshake in
            guard AppVersion.differ(self.configuration.appVersion, handshake.appVersion) else { return }
            logger.notice("link.version-mismatch", ["local": self.configuration.appVersion, "peer": handshake.appVersion])
        }
    }
}

/// `appVersion`, the peer's version (`watchAppVersion` or `phoneAppVersion`) and `versionMismatch`,
/// each `null` until a first handshake.
protocol VersionReporting {
    var session: Session! { get }
}

extension VersionReporting {
    func versionFields(peerKey: String) -> [String: JSONValue] {
        [
            "appVersion": .string(session.configuration.appVersion),
            peerKey: session.counterpartAppVersion.map(JSONValue.string) ?? .null,
            "versionMismatch": session.versionMismatch.map(JSONValue.bool) ?? .null,
        ]
    }
}

extension PhoneDaemon: VersionReporting {}
extension WatchAgent: VersionReporting {}
