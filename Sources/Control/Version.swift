import Connectivity

/// What `--version` says, on every binary.
public enum RunWayPair {
    /// The simulator's own version.
    public static let version = "0.7.0"
    /// The RunWay app version both simulated apps report by default.
    public static let appVersion = SessionConfiguration().appVersion
}
