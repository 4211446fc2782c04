import JSONText

/// `status`: a device's state. The fields `runway` reads — the session's state, the outbox, and the
/// device's own few — are typed, each key spelled once in `Key`; the many others (versions, language,
/// counters, pairing ids, which grow with each feature and differ by device) travel as `other`, free-form
/// JSON that `--json` prints with the rest.
public struct StatusReply: ControlReply {
    /// The watch's durable outbox of userInfo transfers (the phone's, for what it sends).
    public struct Outbox: Sendable, Equatable {
        public var depth: Int64
        public var inFlight: Int64
        public var lastSentTransfer: Int64
        public var lastAcknowledgedTransfer: Int64
        public var window: Int64
        enum Key: String { case depth, inFlight, lastSentTransfer, lastAcknowledgedTransfer, window }

        public init(depth: Int64, inFlight: Int64, lastSentTransfer: Int64, lastAcknowledgedTransfer: Int64, window: Int64) {
            self.depth = depth
            self.inFlight = inFlight
            self.lastSentTransfer = lastSentTransfer
            self.lastAcknowledgedTransfer = lastAcknowledgedTransfer
            self.window = window
        }

        init(json: JSONValue) throws(ControlError) {
            let reader = try ReplyReader<Key>(json, "status outbox")
            depth = try reader.int(.depth)
            inFlight = try reader.int(.inFlight)
            lastSentTransfer = try reader.int(.lastSentTransfer)
            lastAcknowledgedTransfer = try reader.int(.lastAcknowledgedTransfer)
            window = try reader.int(.window)
        }

        var json: JSONValue {
            replyObject([
                (Key.depth, .integer(depth)), (.inFlight, .integer(inFlight)), (.lastSentTransfer, .integer(lastSentTransfer)),
                (.lastAcknowledgedTransfer, .integer(lastAcknowledgedTransfer)), (.window, .integer(window)),
            ])
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
    /// Every other field the device reports.
    public var other: [String: JSONValue]

    enum Key: String, CaseIterable {
        case role, pid, activationState, paired, linked, reachable, watchAppInstalled, outstandingUserInfoTransfers, outbox
        case flights, savePath, uiClients, linkEnabled, watchAppActive
    }

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

    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "status")
        role = try reader.string(.role)
        pid = try reader.int(.pid)
        activationState = try reader.string(.activationState)
        paired = try reader.bool(.paired)
        linked = try reader.bool(.linked)
        reachable = try reader.bool(.reachable)
        watchAppInstalled = try reader.bool(.watchAppInstalled)
        outstandingUserInfoTransfers = try reader.int(.outstandingUserInfoTransfers)
        outbox = try Outbox(json: try reader.value(.outbox) { $0 })
        flights = reader.optional(.flights) { $0.intValue.map(Int64.init) }
        savePath = reader.optional(.savePath) { $0.stringValue }
        uiClients = reader.optional(.uiClients) { $0.intValue.map(Int64.init) }
        linkEnabled = reader.optional(.linkEnabled) { $0.boolValue }
        watchAppActive = reader.optional(.watchAppActive) { $0.boolValue }
        let typed = Set(Key.allCases.map(\.rawValue))
        other = reader.fields.filter { !typed.contains($0.key) }
    }

    public var json: JSONValue {
        let typed = replyObject([
            (Key.role, .string(role)), (.pid, .integer(pid)), (.activationState, .string(activationState)), (.paired, .bool(paired)),
            (.linked, .bool(linked)), (.reachable, .bool(reachable)), (.watchAppInstalled, .bool(watchAppInstalled)),
            (.outstandingUserInfoTransfers, .integer(outstandingUserInfoTransfers)), (.outbox, outbox.json),
            (.flights, flights.map(JSONValue.integer)), (.savePath, savePath.map(JSONValue.string)), (.uiClients, uiClients.map(JSONValue.integer)),
            (.linkEnabled, linkEnabled.map(JSONValue.bool)), (.watchAppActive, watchAppActive.map(JSONValue.bool)),
        ])
        return .object(other.merging(typed.objectValue ?? [:]) { _, typed in typed })
    }
}
