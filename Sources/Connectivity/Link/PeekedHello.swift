import Posix

/// What the first bytes of a watch's connection say, read without consuming them: phone-os accepts the
/// link while the phone app is down and peeks (`MSG_PEEK`) at the watch's `hello` to decide whether to
/// launch the app for it (`OSProcess.PhoneOS`). The frame is cut by the link's own decoder, under a tighter
/// limit — a `hello` is a few hundred bytes — so the OS reads the frame header the way the session does.
package enum PeekedHello: Equatable, Sendable {
    /// Not all of the `hello` is there yet: look again when more has arrived.
    case incomplete
    /// The watch's `hello`, and the length of its frame on the wire (what to read to consume it).
    case hello(Handshake, frameLength: Int)
    /// Not a `hello`, or not one that can be read: why, for the log line.
    case refused(String)

    /// The largest `hello` frame the OS waits for (its peek buffer is larger).
    package static let maximumLength = 60 * 1024

    /// Judges `bytes`, the start of the connection: refused as soon as the header shows anything but a
    /// `hello`, before its body has arrived.
    package init(_ bytes: UnsafeRawBufferPointer) {
        let decoder = FrameDecoder(maximumLength: Self.maximumLength)
        do throws(FrameError) {
            guard let header = try decoder.header(bytes) else {
                self = .incomplete
                return
            }
            guard header.type == .hello else {
                self = .refused("the first frame is not a hello (\(header.type))")
                return
            }
            guard let (frame, consumed) = try decoder.decode(bytes) else {
                self = .incomplete
                return
            }
            guard let hello = try? Handshake(decoding: frame.payload) else {
                self = .refused("the hello could not be read")
                return
            }
            self = .hello(hello, frameLength: consumed)
        } catch {
            self = .refused("the first frame is not a hello (\(error))")
        }
    }
}
