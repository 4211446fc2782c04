/// The Pre-flight check's APPLE WATCH row and heart-rate mode (RunWay 1.3.2, APP_SPEC C).
///
/// One rule, in one place: heart-rate mode is available exactly when the row is ok
/// (`heartRateModeAvailable` is `appleWatch(…).ok`, not a second copy of its conditions). A later
/// phone-led run asks `PreflightCheck.evaluate` too.
public enum PreflightCheck {
    /// What the session says, read at one moment.
    public struct WatchSnapshot: Equatable, Sendable {
        public var activated: Bool
        public var paired: Bool
        public var watchAppInstalled: Bool
        public var reachable: Bool

        public init(activated: Bool, paired: Bool, watchAppInstalled: Bool, reachable: Bool) {
            self.activated = activated
            self.paired = paired
            self.watchAppInstalled = watchAppInstalled
            self.reachable = reachable
        }
    }

    /// `current` is 1.3.2 with the activation hole closed; `legacy` is 1.3.1's row (reachability) with
    /// no activation guard and heart-rate mode's own, duplicated rule.
    public enum Rule: String, Sendable { case current, legacy }

    public struct Row: Equatable, Sendable {
        public let label: String
        public let ok: Bool
    }

    public struct Result: Equatable, Sendable {
        public let appleWatch: Row
        public let heartRateModeAvailable: Bool
    }

    public static let checking = "CHECKING"
    public static let notPaired = "NOT PAIRED"
    public static let appNotInstalled = "APP NOT INSTALLED"
    public static let ready = "READY"
    public static let connected = "CONNECTED"
    public static let notConnected = "NOT CONNECTED"

    /// The APPLE WATCH row. Reachability is not consulted by the current rule.
    public static func appleWatch(_ watch: WatchSnapshot, rule: Rule = .current) -> Row {
        switch rule {
        case .current:
            // Before activation completes the session's answers mean nothing yet (seed hole #43).
            guard watch.activated else { return Row(label: checking, ok: false) }
            guard watch.paired else { return Row(label: notPaired, ok: false) }
            guard watch.watchAppInstalled else { return Row(label: appNotInstalled, ok: false) }
            return Row(label: ready, ok: true)
        case .legacy:
            // Reads isPaired whenever asked: false before activation, so NOT PAIRED in the window.
            guard watch.paired else { return Row(label: notPaired, ok: false) }
            return watch.reachable ? Row(label: connected, ok: true) : Row(label: notConnected, ok: false)
        }
    }

    /// Whether heart-rate mode may be chosen. The current rule is the row's `ok`; 1.3.1 kept a copy.
    public static func heartRateModeAvailable(_ watch: WatchSnapshot, rule: Rule = .current) -> Bool {
        switch rule {
        case .current: appleWatch(watch, rule: .current).ok
        case .legacy: watch.paired && watch.watchAppInstalled
        }
    }

    public static func evaluate(_ watch: WatchSnapshot, rule: Rule = .current) -> Result {
        Result(appleWatch: appleWatch(watch, rule: rule), heartRateModeAvailable: heartRateModeAvailable(watch, rule: rule))
    }
}
