/// The Pre-flight check's APPLE WATCH row (RunWay 1.3.2, #41/#42): `NOT PAIRED` if no watch is paired,
/// else `APP NOT INSTALLED` if the watch app is missing, else `READY`. Reachability is not consulted (the
/// 1.3.1 bug read `isReachable`, true only while the watch app is in the foreground). Heart-rate mode is
/// available exactly when the row is ok: one rule, `heartRateModeAvailable`, never a second copy.
public struct AppleWatchRow: Equatable, Sendable {
    public let label: String
    public let ok: Bool

    public init(paired: Bool, watchAppInstalled: Bool) {
        if !paired {
            (label, ok) = ("NOT PAIRED", false)
        } else if !watchAppInstalled {
            (label, ok) = ("APP NOT INSTALLED", false)
        } else {
            (label, ok) = ("READY", true)
        }
    }

    public var heartRateModeAvailable: Bool { ok }
}
