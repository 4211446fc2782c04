import JSONText

/// `status`: a device's state. The fields `runway` reads — the session's state, the outbox, and the
/// device's own few — are typed; the many others (versions, language, counters, pairing ids, which grow
/// with each feature and differ by device) travel as `other`, free-form JSON that `--json` prints with the
/// rest.
public struct StatusReply: ControlReply {
    /// The watch's durable outbox of userInfo transfers (the phone's, for what it sends).
    public struct Outbox: Codable, Sendable, Equatable {
        public var depth: Int64
        public var inFlight: Int64
        public var lastSentTransfer: Int64
        public var lastAcknowledgedTransfer: Int64
        public var window: Int64

        public init(depth: Int64, inFlight: Int64, lastSentTransfer: Int64, lastAcknowledgedTransfer: Int64, window: Int64) {
            self.depth = depth
            self.inFlight = inFlight
            self.lastSentTransfer = lastSentTransfer
            self.lastAcknowledgedTransfer = lastAcknowledgedTransfer
            self.window = window
        }
    }

    /// `phone` or `watch`.
    public var role: String
    public var pid: Int64
    public var activationState: String
    public var paired: Bool
    public var linked: Bool
    public var reachable: Bool
    public var watchAppInstalled: Bool
    public var outstandingUserInfoTransfers: Int64
    public var outbox: Outbox
    /// The phone's: flights in the logbook, where a received flight goes, attached UIs.
    public var flights: Int64?
    public var savePath: String?
    public var uiClients: Int64?
    /// The watch's: whether the link is enabled (`runway link`), and whether its app is in the foreground.
    public var linkEnabled: Bool?
    public var watchAppActive: Bool?
    /// Every other field the device reports (declared last: it is what the fields above leave).
    @OtherFields public var other: [String: JSONValue]

    /// The session's part of a status; the device adds its own.
    public init(
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
