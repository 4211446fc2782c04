/// The Pre-flight check's APPLE WATCH row (RunWay 1.3.2, #41/#42): `NOT PAIRED` if no watch is paired,
/// else `APP NOT INSTALLED` if the watch app is missing, else `READY`. Reachability is not consulted (the
/// 1.3.1 bug read `isReachable`, true only while the watch app is in the foreground). Heart-rate mode is
/// available exactly when the row is ok: one rule, `heartRateModeAvailable`, never a second copy.
public struct AppleWatchRow: Equatable, Sendable {
    public let label: String
    public let ok: Bool

    /// The rule itself is `PreflightCheck.appleWatch` (one place): `CHECKING` before activation.
    public init(paired: Bool, watchAppInstalled: Bool, activated: Bool = true) {
        let row = PreflightCheck.appleWatch(.init(activated: activated, paired: paired, watchAppInstalled: watchAppInstalled, reachable: false))
        (label, ok) = (row.label, row.ok)
    }

    public var heartRateModeAvailable: Bool { ok }
}
