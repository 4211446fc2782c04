import Posix

/// The unit of both sockets, the link between the devices and the control socket of each daemon:
///
///     +----------------+---------+------+-----------------+
///     | length: UInt32 | version | type | payload ...     |
///     +----------------+---------+------+-----------------+
///
/// `length` (big-endian) counts everything after itself: version, type and payload. It is checked
/// against `maximumLength` before a byte of the body is buffered, so a lying prefix costs nothing.
public struct Frame: Equatable, Sendable {
    public static let protocolVersion: UInt8 = 1
    /// The largest frame either side accepts: an application context (256 KiB) plus room to spare.
    public static let maximumLength = 512 * 1024
    static let headerLength = 6

    public var type: FrameType
    public var payload: [UInt8]

    public init(_ type: FrameType, _ payload: [UInt8] = []) {
        self.type = type
        self.payload = payload
    }

    /// The frame's bytes on the wire.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerLength + payload.count)
        Self.appendHeader(type: type, payloadLength: payload.count, to: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }

    public static func appendHeader(type: FrameType, payloadLength: Int, to bytes: inout [UInt8]) {
        let length = UInt32(payloadLength + 2)
        bytes.append(UInt8(truncatingIfNeeded: length >> 24))
        bytes.append(UInt8(truncatingIfNeeded: length >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length))
        bytes.append(protocolVersion)
        bytes.append(type.rawValue)
    }
}

/// Every frame type of protocol version 1.
public enum FrameType: UInt8, Sendable, CaseIterable {
    // Link: handshake
    /// watch → phone: who I am, what I have received (property list).
    case hello = 0x01
    /// phone → watch: accepted; who I am, what I have received (property list).
    case welcome = 0x02
    /// Either way: a WatchConnectivity error code and a message (property list); may precede a close.
    case error = 0x03

    // Link: transfers and their acknowledgements
    /// A queued userInfo transfer: sequence number (UInt64) + property-list dictionary.
    case userInfo = 0x10
    /// Every transfer up to and including this sequence number (UInt64) is durable at the receiver.
    case ack = 0x11
    /// The sender's app changed state (installed, foreground) (property list).
    case appState = 0x12
    /// The latest application context: sequence number (UInt64) + property-list dictionary.
    case applicationContext = 0x13
    /// The application context up to this sequence number is durable at the receiver.
    case contextAck = 0x14
    /// An immediate message: message id (UInt64) + property-list dictionary.
    case message = 0x15
    /// The reply to a message: message id (UInt64) + property-list dictionary.
    case messageReply = 0x16
    /// A message could not be answered: message id (UInt64) + property list with the error.
    case messageError = 0x17
    /// System-level workout traffic, not the app's (HealthKit's mirrored workout session): a property-list
    /// dictionary whose `kind` is startWorkout, workoutStarted, workoutFailed or stopWorkout.
    case workout = 0x18
    /// A message whose sender expects no reply (`sendMessage` without a reply handler): message id
    /// (UInt64) + property-list dictionary. The receiver's app hears `didReceiveMessage` without a reply.
    case messageNoReply = 0x19
    /// A message without a reply was handed to the receiving app: message id (UInt64).
    case messageDelivered = 0x1A

    // Control socket (CLI and UI clients ↔ daemon)
    /// A command: JSON object.
    case request = 0x40
    /// The command's result: JSON.
    case response = 0x41
    /// Part of a streamed result: raw bytes.
    case chunk = 0x42
    /// End of a streamed result: JSON (may be empty).
    case end = 0x43
    /// An unsolicited event to an attached client (a flight saved): JSON.
    case event = 0x44
}

/// Why a byte stream is not a valid frame sequence: the connection cannot continue after any of these.
public enum FrameError: Error, Equatable, CustomStringConvertible, Sendable {
    case tooLarge(declared: Int, limit: Int)
    case tooShort(declared: Int)
    case unsupportedVersion(UInt8)
    case unknownType(UInt8)

    public var description: String {
        switch self {
        case let .tooLarge(declared, limit): "frame of \(declared) bytes exceeds the \(limit)-byte limit"
        case let .tooShort(declared): "frame length \(declared) is shorter than its header"
        case let .unsupportedVersion(version): "protocol version \(version) is not supported (this side speaks \(Frame.protocolVersion))"
        case let .unknownType(type): "unknown frame type 0x\(String(type, radix: 16))"
        }
    }
}

/// Cuts frames out of a byte stream that may arrive split anywhere.
public struct FrameDecoder {
    public let maximumLength: Int

    public init(maximumLength: Int = Frame.maximumLength) {
        self.maximumLength = maximumLength
    }

    /// The next whole frame at the start of `bytes` and how many bytes it took, nil if the frame is
    /// not complete yet. Throws as soon as the header is known to be bad: the length is checked before
    /// any body bytes are awaited, the version and type as soon as they arrive.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(FrameError) -> (frame: Frame, consumed: Int)? {
        guard bytes.count >= 4 else { return nil }
        let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard declared >= 2 else { throw .tooShort(declared: declared) }
        guard declared <= maximumLength else { throw .tooLarge(declared: declared, limit: maximumLength) }
        if bytes.count >= 5, bytes[4] != Frame.protocolVersion { throw .unsupportedVersion(bytes[4]) }
        guard bytes.count >= 6 else { return nil }
        guard let type = FrameType(rawValue: bytes[5]) else { throw .unknownType(bytes[5]) }
        let total = 4 + declared
        guard bytes.count >= total else { return nil }
        let payload = Array(UnsafeRawBufferPointer(rebasing: bytes[6..<total]))
        return (Frame(type, payload), total)
    }

    /// Decodes every whole frame in `buffer`, consuming them; a partial frame stays for next time.
    /// Frames before a bad header are returned along with the error that stopped decoding.
    public func decodeAll(from buffer: ByteBufferView) -> (frames: [Frame], error: FrameError?) {
        var frames: [Frame] = []
        var failure: FrameError?
        buffer.withReadable { raw in
            var offset = 0
            do throws(FrameError) {
                while let (frame, consumed) = try decode(UnsafeRawBufferPointer(rebasing: raw[offset...])) {
                    frames.append(frame)
                    offset += consumed
                }
            } catch {
                failure = error
            }
            return offset
        }
        return (frames, failure)
    }
}

/// The view of a byte buffer the decoder needs: read the unread bytes, say how many were used.
public protocol ByteBufferView {
    func withReadable(_ body: (UnsafeRawBufferPointer) -> Int)
}

extension ByteBuffer: ByteBufferView {
    public func withReadable(_ body: (UnsafeRawBufferPointer) -> Int) {
        let used = withReadableBytes(body)
        consume(used)
    }
}
