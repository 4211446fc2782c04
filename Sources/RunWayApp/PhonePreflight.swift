import Control
import JSONText
import Posix
import RunWayDomain

// MARK: - The Pre-flight check and the versions (APP_SPEC C, F.5)

extension RunWayPhoneApp {
    /// What the session says now, for the Pre-flight rule. Before activation the session has not read
    /// its pairing: `paired` is false then, which is what the unguarded (legacy) rule trips on.
    var watchSnapshot: PreflightCheck.WatchSnapshot {
        // `runway pair` may have paired the phone while it runs; before activation the session has
        // read nothing yet, as on the device.
        let activated = session.isActivated
        return PreflightCheck.WatchSnapshot(
            activated: activated, paired: session.isPaired,
            watchAppInstalled: session.isWatchAppInstalled, reachable: session.isReachable)
    }

    /// `preflight`: the APPLE WATCH row and HEART RATE MODE by `rule`, what they were decided from, and
    /// the versions.
    func preflight(legacy: Bool) -> PreflightReply {
        let rule: PreflightCheck.Rule = legacy ? .legacy : .current
        let snapshot = watchSnapshot
        let result = PreflightCheck.evaluate(snapshot, rule: rule)
        return PreflightReply(
            appleWatch: .init(label: result.appleWatch.label, ok: result.appleWatch.ok), heartRateMode: .init(available: result.heartRateModeAvailable),
            paired: snapshot.paired, watchAppInstalled: snapshot.watchAppInstalled, reachable: snapshot.reachable,
            activationState: session.activationStateName, rule: rule.rawValue, appVersion: session.appVersion,
            watchAppVersion: session.counterpartAppVersion, versionMismatch: session.versionMismatch,
            watchSentence: session.versionMismatch == true ? UpdateTexts.watchSentence(language.effective) : nil)
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
            "activationState": .string(session.activationStateName),
            "reachable": .bool(snapshot.reachable), "watchAppInstalled": .bool(snapshot.watchAppInstalled),
        ]
        fields.merge(session.versionFields(peerKey: "watchAppVersion")) { _, new in new }
        for client in clients { client.sendEvent(.object(fields)) }
    }
}
