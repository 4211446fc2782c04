import Connectivity

/// What `--version` says, on every binary.
package enum RunWayPair {
    /// The simulator's own version (semantic versioning; the one place it is written): what `--version` prints, the
    /// tag a release gets, and the newest section of CHANGELOG.md (checked by `VersionTests`).
    package static let version = "0.9.0"
    /// The RunWay app version both simulated apps report by default.
    package static let appVersion = SessionConfiguration().appVersion
}
