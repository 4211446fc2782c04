import Control

/// The OS deferred something of the app's (watch-os: a background refresh held "shortly after" its date,
/// or for the budget, under the realistic system — docs/system-timing.md), as it tells the running app,
/// which notes it among its delegate calls (`runway watch events`: `system.deferred`, as its session's
/// own deferrals are).
package struct SystemDeferredEvent: ControlRecord, OSEvent {
    package static var name: String { "systemDeferred" }
    /// What was deferred (`refresh`) and its number (the count of refreshes the app scheduled).
    package var lane: String
    package var seq: Int64
    package var delayMs: Int64
    package var reason: String

    package init(lane: String, seq: Int64, delayMs: Int64, reason: String) {
        self.lane = lane
        self.seq = seq
        self.delayMs = delayMs
        self.reason = reason
    }
}
