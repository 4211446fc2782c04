import Posix

/// What waits unread on a suspended app's link, judged without consuming it: the device's OS keeps a copy
/// of the app's established connection (`FDSTORE=1`) and, while the app is suspended, peeks
/// (`MSG_PEEK`) at what the counterpart sent, to wake the app for what wakes an app on Apple's devices —
/// a message, a transfer (userInfo, complication, context, file), a workout — and not for the link's own
/// bookkeeping (acknowledgements of what the app sent, the counterpart's app state), which the system
/// keeps on a device while the app sleeps (issue 50).
package enum PeekedTraffic: Equatable, Sendable {
    /// The first frame that wakes the app, and how the OS names the wake.
    case wakes(FrameType, reason: String, key: String)
    /// Only bookkeeping so far (or part of a frame): nothing to wake for yet.
    case nothingToWakeFor
    /// Bytes that are not frames: the app's own session will close the link; the OS wakes it for that.
    case malformed(String)

    /// Judges `bytes`, the start of what waits on the link.
    package init(_ bytes: UnsafeRawBufferPointer) {
        let decoder = FrameDecoder()
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let header: (type: FrameType, total: Int)?
            do throws(FrameError) {
                header = try decoder.header(rest)
            } catch {
                self = .malformed("\(error)")
                return
            }
            guard let (type, total) = header else { break }
            if let (reason, key) = Self.wakeReason(type) {
                self = .wakes(type, reason: reason, key: key)
                return
            }
            offset += total
        }
        self = .nothingToWakeFor
    }

    /// Why a frame of `type` wakes the app (the log's words, the status's key), nil if it does not.
    static func wakeReason(_ type: FrameType) -> (String, String)? {
        switch type {
        case .message, .messageNoReply, .messageData, .messageDataNoReply: ("the counterpart sent a message", "message")
        case .messageReply, .messageDataReply, .messageError, .messageDelivered: ("the counterpart answered the app's message", "message")
        case .userInfo, .complicationUserInfo: ("the counterpart sent a transfer", "transfer")
        case .applicationContext: ("the counterpart sent an application context", "transfer")
        case .fileBegin, .fileResume, .fileChunk, .fileCancel: ("the counterpart sent a file", "transfer")
        case .workout: ("the counterpart sent a workout event", "workout")
        case .hello, .welcome, .proof, .error: ("the link's handshake or an error", "link")
        case .ack, .contextAck, .complicationAck, .fileAck, .fileProgress, .fileError, .appState: nil
        }
    }
}
