import Posix

/// A frame of the link between the devices (the layout is `Posix.WireFrame`'s).
package typealias Frame = WireFrame<FrameType>
/// Cuts link frames out of a byte stream; a control-socket type byte is `unknownType` here.
package typealias FrameDecoder = WireFrameDecoder<FrameType>

/// Every frame type of the link, protocol version 1. (The control socket's are `Control.ControlFrameType`.)
package enum FrameType: UInt8, WireFrameKind, CaseIterable {
    // Link: handshake
    /// watch → phone: who I am, what I have received (property list).
    case hello = 0x01
    /// phone → watch: accepted; who I am, what I have received (property list).
    case welcome = 0x02
    /// Either way: a WatchConnectivity error code and a message (property list); may precede a close.
    case error = 0x03
    /// Either way, once, to end the handshake: the sender's proof that it holds the pair's secret, 32
    /// bytes (`LinkProof`): the phone's follows its `welcome`, the watch's answers it.
    case proof = 0x04

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
    /// A data message (`sendMessageData` with a reply handler): message id (UInt64) + the bytes, as the
    /// app gave them (no property list). Answered by `messageDataReply` or `messageError`.
    case messageData = 0x1B
    /// A data message whose sender expects no reply: message id (UInt64) + the bytes. Confirmed by
    /// `messageDelivered`.
    case messageDataNoReply = 0x1C
    /// The reply to a data message: message id (UInt64) + the reply's bytes.
    case messageDataReply = 0x1D

    // Link: the complication lane (phone → watch), ahead of the userInfo lane
    /// A complication userInfo (`transferCurrentComplicationUserInfo`): sequence number (UInt64, the
    /// complication lane's own) + property-list dictionary.
    case complicationUserInfo = 0x1E
    /// Every complication transfer up to this sequence number (UInt64) is durable at the receiver.
    case complicationAck = 0x1F

    // Link: the file lane (`transferFile`), one file at a time, in chunks
    /// Sender → receiver: file transfer seq (UInt64) + its description (property list: name, size,
    /// sha256, metadata). The receiver answers `fileResume` (or `fileAck` if it has it already).
    case fileBegin = 0x20
    /// Receiver → sender: seq + the bytes of it durable here (UInt64): send from there.
    case fileResume = 0x21
    /// Sender → receiver: seq + offset (UInt64) + bytes, at most `FileTransferLimits.chunkBytes`.
    case fileChunk = 0x22
    /// Receiver → sender: seq + how many bytes are durable now (UInt64): the window moves.
    case fileProgress = 0x23
    /// Receiver → sender: every file up to this seq was delivered to the app (the file lane's cursor).
    case fileAck = 0x24
    /// Receiver → sender: seq + an error (property list): the file cannot be taken (no space, a
    /// checksum that does not match); what arrived of it is gone.
    case fileError = 0x25
    /// Sender → receiver: seq: cancelled; drop what arrived of it.
    case fileCancel = 0x26
}
