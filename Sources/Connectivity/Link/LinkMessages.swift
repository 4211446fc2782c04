import PropertyLists
/// The payloads of the link's frames, and their encodings.

/// What each side says about itself when the link comes up (`hello` from the watch, `welcome` from the
/// phone). `resume` is, per lane, the highest sequence number this side has durably received from the
/// other: the sender drops everything up to it from that lane's outbox and resumes after it.
package struct Handshake: Equatable, Sendable {
    package var role: DeviceRole
    package var deviceID: String
    package var pairingID: String
    package var appVersion: String
    /// Each lane's receive cursor, where the counterpart resumes it. On the wire each is a field of its
    /// own (`LaneSpec.resumeKey`: `resumeSeq`, `complicationResumeSeq`, `fileResumeSeq`), mapped in
    /// `encoded` and `init(decoding:)` only.
    package var resume = Lanes<Int64>(repeating: 0)
    package var appInstalled: Bool
    package var appActive: Bool
    /// What the sender has queued for the other side and not yet seen acknowledged (its outbox): the
    /// phone's system (`phone-os`) reads it from the watch's `hello` to decide whether to launch the app.
    package var pendingTransfers: Int64 = 0
    /// Messages the sender's app sent (`sendMessage`) while the link was down, waiting for it: from the
    /// watch, phone-os launches the phone app for them (Apple: a watch's message wakes the iOS app).
    package var pendingMessages: Int64 = 0
    /// The watch: its app mirrors a workout session whose start or data the phone has not acknowledged
    /// (HealthKit's `startMirroringToCompanionDevice`): phone-os launches the phone app for it (Apple: "If
    /// your iOS app isn't running, the system launches it in the background").
    package var pendingWorkoutMirroring = false
    /// The watch: its app's complication is on the active watch face (the phone's `isComplicationEnabled`).
    package var complicationEnabled = false
    /// This side's fresh challenge for the connection (`LinkProof.nonceLength` random bytes): the proofs
    /// of both sides cover it (`LinkProof`). Empty only in a handshake of a RunWay before the pairing
    /// secret, which is refused.
    package var nonce: [UInt8] = []
    /// The version of the application context this side has set for the other (0: none): the receiver
    /// takes a context only up to the version after the highest it knows the sender had
    /// (`ApplicationContextRules.limit`).
    package var contextVersion: Int64 = 0
    /// The version of the application context this side holds from the other (0: none). A sender told
    /// of a version it never set moves its own past it (`ApplicationContextRules.healed`).
    package var contextHeld: Int64 = 0
    /// The sender has an application context the other side has not acknowledged: content like any other
    /// (issue 50) — the receiver's `hasContentPending` is true until it arrives, and phone-os launches the
    /// phone app for one from the watch.
    package var pendingContext = false
    /// The userInfo lane's receive cursor (`resume.userInfo`).
    package var resumeSeq: Int64 {
        get { resume.userInfo }
        set { resume.userInfo = newValue }
    }

    package init(
        role: DeviceRole, deviceID: String, pairingID: String, appVersion: String, resumeSeq: Int64,
        appInstalled: Bool = true, appActive: Bool = true
    ) {
        self.role = role
        self.deviceID = deviceID
        self.pairingID = pairingID
        self.appVersion = appVersion
        self.resume.userInfo = resumeSeq
        self.appInstalled = appInstalled
        self.appActive = appActive
    }

    package var encoded: [UInt8] {
        var fields: [String: PropertyListValue] = [
            "role": .string(role.rawValue),
            "deviceID": .string(deviceID),
            "pairingID": .string(pairingID),
            "appVersion": .string(appVersion),
            "appInstalled": .bool(appInstalled),
            "appActive": .bool(appActive),
        ]
        // Only when there is something: a hello with nothing pending is byte for byte the older one.
        if pendingTransfers > 0 { fields["pendingTransfers"] = .integer(pendingTransfers) }
        if pendingMessages > 0 { fields["pendingMessages"] = .integer(pendingMessages) }
        if pendingWorkoutMirroring { fields["pendingWorkoutMirroring"] = .bool(true) }
        if complicationEnabled { fields["complicationEnabled"] = .bool(true) }
        if !nonce.isEmpty { fields["nonce"] = .data(nonce) }
        if contextVersion > 0 { fields["contextVersion"] = .integer(contextVersion) }
        if contextHeld > 0 { fields["contextHeld"] = .integer(contextHeld) }
        if pendingContext { fields["pendingContext"] = .bool(true) }
        // Each lane's cursor under its key: the userInfo lane's always (every handshake has had it), the
        // others only when there is something, as they were added.
        for lane in TransferLane.allCases where lane.spec.resumeAlwaysSent || resume[lane] > 0 {
            fields[lane.spec.resumeKey] = .integer(resume[lane])
        }
        return PropertyListCodec.encode(fields)
    }

    package init(decoding payload: [UInt8]) throws(DecodeError) {
        let fields = try PropertyListCodec.decodeDictionary(payload)
        guard let roleName = fields["role"]?.stringValue, let role = DeviceRole(rawValue: roleName),
            let deviceID = fields["deviceID"]?.stringValue,
            let pairingID = fields["pairingID"]?.stringValue,
            let appVersion = fields["appVersion"]?.stringValue,
            let resumeSeq = fields[TransferLane.userInfo.spec.resumeKey]?.int64Value, resumeSeq >= 0
        else { throw .invalid("handshake is missing a field or has one of the wrong type") }
        self.init(
            role: role, deviceID: deviceID, pairingID: pairingID, appVersion: appVersion, resumeSeq: resumeSeq,
            appInstalled: fields["appInstalled"]?.boolValue ?? true,
            appActive: fields["appActive"]?.boolValue ?? true)
        pendingTransfers = max(0, fields["pendingTransfers"]?.int64Value ?? 0)
        pendingMessages = max(0, fields["pendingMessages"]?.int64Value ?? 0)
        pendingWorkoutMirroring = fields["pendingWorkoutMirroring"]?.boolValue ?? false
        complicationEnabled = fields["complicationEnabled"]?.boolValue ?? false
        if let nonce = fields["nonce"] {
            guard let bytes = nonce.dataValue, bytes.count == LinkProof.nonceLength else {
                throw .invalid("handshake nonce is not \(LinkProof.nonceLength) bytes of data")
            }
            self.nonce = bytes
        }
        contextVersion = max(0, fields["contextVersion"]?.int64Value ?? 0)
        contextHeld = max(0, fields["contextHeld"]?.int64Value ?? 0)
        pendingContext = fields["pendingContext"]?.boolValue ?? false
        for lane in TransferLane.allCases where !lane.spec.resumeAlwaysSent {
            resume[lane] = max(0, fields[lane.spec.resumeKey]?.int64Value ?? 0)
        }
    }
}

/// An `error` frame: a WatchConnectivity error, sent before the sender closes the link.
package enum ErrorFrame {
    package static func encode(_ error: WCError) -> [UInt8] {
        var fields: UserInfo = [
            "code": .integer(Int64(error.code.rawValue)),
            "name": .string(error.name),
            "message": .string(error.message),
        ]
        // Only when set: an error frame without it is byte for byte the older one.
        if error.lockedAfterReboot { fields["lockedAfterReboot"] = .bool(true) }
        return PropertyListCodec.encode(fields)
    }

    package static func decode(_ payload: [UInt8]) throws(DecodeError) -> WCError {
        let fields = try PropertyListCodec.decodeDictionary(payload)
        guard let raw = fields["code"]?.int64Value else { throw .invalid("error frame without a code") }
        let code = WCError.Code(rawValue: Int(raw)) ?? .genericError
        return WCError(code, fields["message"]?.stringValue ?? "", lockedAfterReboot: fields["lockedAfterReboot"]?.boolValue ?? false)
    }
}

/// Frames whose payload starts with a 64-bit number (a sequence number or message id).
package enum SequencedFrame {
    /// Appends a whole frame — header, number, body — to `bytes`.
    package static func append(_ type: FrameType, number: Int64, body: [UInt8], to bytes: inout [UInt8]) {
        Frame.appendHeader(type: type, payloadLength: 8 + body.count, to: &bytes)
        var value = UInt64(bitPattern: number)
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: value >> 56))
            value <<= 8
        }
        bytes.append(contentsOf: body)
    }

    package static func frame(_ type: FrameType, number: Int64, body: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Frame.headerLength + 8 + body.count)
        append(type, number: number, body: body, to: &bytes)
        return bytes
    }

    /// The number and the body of a sequenced frame's payload.
    package static func split(_ payload: [UInt8]) throws(DecodeError) -> (number: Int64, body: ArraySlice<UInt8>) {
        guard payload.count >= 8 else { throw .truncated(needed: 8, available: payload.count) }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(payload[i]) }
        return (Int64(bitPattern: value), payload[8...])
    }
}
