import JSONText

/// `status`: a device's state. The fields `runway` reads — the session's state, the outbox, and the
/// device's own few — are typed; the many others (versions, language, counters, pairing ids, which grow
/// with each feature and differ by device) travel as `other`, free-form JSON that `--json` prints with the
/// rest.
package struct StatusReply: ControlReply {
    /// The watch's durable outbox of userInfo transfers (the phone's, for what it sends).
    package struct Outbox: Codable, Sendable, Equatable {
        package var depth: Int64
        package var inFlight: Int64
        package var lastSentTransfer: Int64
        package var lastAcknowledgedTransfer: Int64
        package var window: Int64

        package init(depth: Int64, inFlight: Int64, lastSentTransfer: Int64, lastAcknowledgedTransfer: Int64, window: Int64) {
            self.depth = depth
            self.inFlight = inFlight
            self.lastSentTransfer = lastSentTransfer
            self.lastAcknowledgedTransfer = lastAcknowledgedTransfer
            self.window = window
        }
    }

    /// `phone` or `watch`.
    package var role: String
    package var pid: Int64
    package var activationState: String
    package var paired: Bool
    package var linked: Bool
    package var reachable: Bool
    package var watchAppInstalled: Bool
    package var outstandingUserInfoTransfers: Int64
    package var outbox: Outbox
    /// The phone's: flights in the logbook, where a received flight goes, attached UIs.
    package var flights: Int64?
    package var savePath: String?
    package var uiClients: Int64?
    /// The watch's: whether the link is enabled (`runway link`), and whether its app is in the foreground.
    package var linkEnabled: Bool?
    package var watchAppActive: Bool?
    /// Every other field the device reports (declared last: it is what the fields above leave).
    @OtherFields package var other: [String: JSONValue]

    /// The session's part of a status; the device adds its own.
    package init(
        role: String, pid: Int64, activationState: String, paired: Bool, linked: Bool, reachable: Bool, watchAppInstalled: Bool,
        outstandingUserInfoTransfers: Int64, outbox: Outbox, other: [String: JSONValue] = [:]
    ) {
        self.role = role
        self.pid = pid
        self.activationState = activationState
        self.paired = paired
        self.linked = linked
        self.reachable = reachable
        self.watchAppInstalled = watchAppInstalled
        self.outstandingUserInfoTransfers = outstandingUserInfoTransfers
        self.outbox = outbox
        self.other = other
    }
}
