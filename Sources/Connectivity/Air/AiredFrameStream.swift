import Posix

/// What arrives through the air on the way in: a frame, or the counterpart's hang-up (which must not
/// overtake the frames it sent before it).
enum AirArrival {
    case frame(Frame)
    case closed(SocketStream.CloseReason)
}

/// Frames over one socket through the watch's air (`LinkAir`): the link conditions, written once for
/// every connection of the watch's link — a session's (`UnixLinkConnection`, in the watch app) and
/// watch-os's own, which holds the link while the watch app is not running (docs/link-conditions.md).
///
/// Each frame written waits in the air until it arrives, then goes to the socket; each frame read waits
/// until it arrives, then is handed on (`onFrames`); a lost frame cuts the connection where it would have
/// arrived (`onLoss`: the owner closes, and the watch reconnects as after any cut); the counterpart's
/// hang-up arrives after the frames it sent before it (`onClose`). Timers on the device's loop, no thread
/// sleeps. Without air (the phone's side), or with clear air and nothing in it, frames go straight through.
///
/// Memory stays bounded: what is in the air outbound counts as pending output (a session stops at its
/// high-water mark), and at most `maximumInboundAirBytes` are decoded into the air inbound — the rest
/// waits in the socket's buffer, whose reading pauses (`SocketStream.maximumInboundBytes`), so the kernel
/// pushes back on the phone.
package final class AiredFrameStream {
    package static let maximumInboundAirBytes = 1 << 20

    package let stream: SocketStream
    private let loop: EventLoop
    private let air: LinkAir?
    private let decoder = FrameDecoder()
    private var outboundPipe = LinkPipe()
    private var inboundPipe = LinkPipe()
    private var outboundAir = AirQueue<[UInt8]>()
    private var inboundAir = AirQueue<AirArrival>()
    private var outboundTimer: EventLoop.TimerID?
    private var inboundTimer: EventLoop.TimerID?
    /// Told once what was in the air outbound has gone to the socket (`afterOutboundAir`).
    private var outboundLanded: (() -> Void)?
    /// The connection is over (`discardAir`, `close`): nothing more is written, read or reported.
    private var ended = false

    /// Whether the connection is established (its handshake done): only then may the TEST-ONLY
    /// `LinkAir.lossSkipsFrames` make a lost frame vanish without a cut. The handshake's frames still cut
    /// when lost: a lost hello or welcome would otherwise cost the handshake's whole time-out (5 s) for
    /// each, which the rule under test does not need.
    package var isEstablished = false

    /// Frames that arrived, in order; then the error of a malformed frame read after them, if one was
    /// (nothing after it can be trusted: the owner closes the connection).
    package var onFrames: ([Frame], FrameError?) -> Void = { _, _ in }
    /// The socket closed: at once for our own close (with the bytes of a frame it cut off, unread), after
    /// the frames sent before it for the counterpart's hang-up. Not called for `close(_:)`.
    package var onClose: (SocketStream.CloseReason, _ unfinishedBytes: Int) -> Void = { _, _ in }
    /// A frame was lost in the air, one way ("to the phone", "from the phone"): the owner cuts the
    /// connection. `LinkAir.framesLost` already counts it.
    package var onLoss: (_ direction: String) -> Void = { _ in }

    package init(stream: SocketStream, loop: EventLoop, air: LinkAir?) {
        self.stream = stream
        self.loop = loop
        self.air = air
    }

    package func start() {
        stream.onRead = { [unowned self] _ in self.read() }
        stream.onClose = { [unowned self] _, reason in self.streamDidClose(reason) }
        stream.start()
    }

    /// Whether frames go through the air: conditions are set, or frames from before are still in it (a
    /// frame sent after the air cleared must not overtake them).
    private var usesAir: Bool {
        guard let air else { return false }
        return !air.shape.isClear || !outboundAir.isEmpty || !inboundAir.isEmpty
    }

    private var skipsLostFrames: Bool { air?.lossSkipsFrames == true && isEstablished }

    /// What it holds in the air now, both ways.
    package var bytesInAir: Int { outboundAir.heldBytes + inboundAir.heldBytes }

    /// What is written and not yet taken by the kernel: in the socket's buffer or in the air.
    package var pendingOutboundBytes: Int { stream.pendingOutboundBytes + outboundAir.heldBytes }

    // MARK: - Out

    /// Whole frames to the counterpart, through the air: each frame in `bytes` travels on its own.
    package func send(_ bytes: [UInt8]) {
        guard let air, usesAir else { return stream.write(bytes) }
        let now = loop.nowNanoseconds
        let shape = air.shape
        var offset = 0
        while offset < bytes.count {
            var end = bytes.count
            if bytes.count - offset >= 4 {
                let declared = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                end = min(bytes.count, offset + 4 + declared)
            }
            let verdict = outboundPipe.admit(bytes: end - offset, now: now, shape: shape, random: &air.random)
            air.framesCarried += 1
            outboundAir.append(Array(bytes[offset..<end]), bytes: end - offset, verdict)
            offset = end
        }
        noteHeld()
        armOutbound()
    }

    /// Calls `action` once nothing written is left in the air (at once if nothing is).
    package func afterOutboundAir(_ action: @escaping () -> Void) {
        guard !outboundAir.isEmpty else { return action() }
        outboundLanded = action
    }

    private func armOutbound() {
        guard outboundTimer == nil, let next = outboundAir.nextArrival else { return }
        let now = loop.nowNanoseconds
        outboundTimer = loop.schedule(afterNanoseconds: next > now ? next - now : 0) { [weak self] in
            guard let self else { return }
            self.outboundTimer = nil
            self.outboundArrivals()
        }
    }

    private func outboundArrivals() {
        guard !ended, !stream.isClosed else { return }
        let (due, cut) = outboundAir.takeDue(now: loop.nowNanoseconds, skippingLost: skipsLostFrames)
        for bytes in due { stream.write(bytes) }
        if cut { return cutByLoss("to the phone") }
        armOutbound()
        if outboundAir.isEmpty, let landed = outboundLanded {
            outboundLanded = nil
            landed()
        }
    }

    // MARK: - In

    private func read() {
        guard !ended else { return }
        guard usesAir else {
            let (frames, error) = decoder.decodeAll(from: stream.inbound)
            hand(frames, error)
            if !ended { stream.resumeReadingIfRoom() }
            return
        }
        readIntoAir()
    }

    /// Cuts whole frames out of what was read into the air, while it has room (all of it when
    /// `draining`: the socket closed); a bad frame is reported at once (nothing after it can be trusted).
    private func readIntoAir(draining: Bool = false) {
        guard let air else { return }
        let now = loop.nowNanoseconds
        let shape = air.shape
        var failure: FrameError?
        stream.inbound.withReadable { raw in
            var offset = 0
            do throws(FrameError) {
                while draining || inboundAir.heldBytes < Self.maximumInboundAirBytes,
                    let (frame, consumed) = try decoder.decode(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                {
                    offset += consumed
                    let verdict = inboundPipe.admit(bytes: consumed, now: now, shape: shape, random: &air.random)
                    air.framesCarried += 1
                    inboundAir.append(.frame(frame), bytes: consumed, verdict)
                }
            } catch {
                failure = error
            }
            return offset
        }
        if let failure { return hand([], failure) }
        noteHeld()
        armInbound()
        if !ended, !stream.isClosed { stream.resumeReadingIfRoom() }
    }

    private func armInbound() {
        guard inboundTimer == nil, let next = inboundAir.nextArrival else { return }
        let now = loop.nowNanoseconds
        inboundTimer = loop.schedule(afterNanoseconds: next > now ? next - now : 0) { [weak self] in
            guard let self else { return }
            self.inboundTimer = nil
            self.inboundArrivals()
        }
    }

    private func inboundArrivals() {
        guard !ended else { return }
        let (due, cut) = inboundAir.takeDue(now: loop.nowNanoseconds, skippingLost: skipsLostFrames)
        var frames: [Frame] = []
        for arrival in due {
            switch arrival {
            case let .frame(frame): frames.append(frame)
            case let .closed(reason):
                hand(frames, nil)
                if !ended { onClose(reason, 0) }
                return
            }
        }
        hand(frames, nil)
        guard !ended else { return }
        if cut { return cutByLoss("from the phone") }
        if stream.isClosed {
            armInbound()
        } else {
            readIntoAir()
        }
    }

    private func hand(_ frames: [Frame], _ error: FrameError?) {
        guard !frames.isEmpty || error != nil else { return }
        onFrames(frames, error)
    }

    // MARK: - The air clears, the connection ends

    /// The air cleared: what is in it arrives now, both ways (`AirQueue.land`).
    package func landTheAir() {
        let now = loop.nowNanoseconds
        outboundAir.land(at: now)
        inboundAir.land(at: now)
        if let outboundTimer { loop.cancel(outboundTimer) }
        if let inboundTimer { loop.cancel(inboundTimer) }
        (outboundTimer, inboundTimer) = (nil, nil)
        armOutbound()
        armInbound()
    }

    /// The socket closed. Our own close is final at once; the counterpart's hang-up (or a reset) arrives
    /// after the frames it sent before it, which are still in the air.
    private func streamDidClose(_ reason: SocketStream.CloseReason) {
        let local = if case .localClose = reason { true } else { false }
        guard !local, usesAir else { return onClose(reason, stream.inbound.readableCount) }
        readIntoAir(draining: true)
        guard !ended else { return }
        let arrival = max(loop.nowNanoseconds, inboundPipe.lastArrival)
        inboundAir.append(.closed(reason), bytes: 0, .arrive(at: arrival))
        armInbound()
    }

    private func noteHeld() {
        guard let air else { return }
        air.mostBytesInAir = max(air.mostBytesInAir, bytesInAir)
    }

    private func cutByLoss(_ direction: String) {
        air?.framesLost += 1
        onLoss(direction)
    }

    /// Closes the socket without telling `onClose`; what is in the air goes with it.
    package func close(_ reason: String) {
        discardAir()
        stream.onClose = nil
        if !stream.isClosed { stream.close(.localClose(reason)) }
    }

    /// The connection is over: what is in the air goes with it, and nothing more is reported.
    package func discardAir() {
        ended = true
        if let outboundTimer { loop.cancel(outboundTimer) }
        if let inboundTimer { loop.cancel(inboundTimer) }
        outboundTimer = nil
        inboundTimer = nil
        outboundAir.removeAll()
        inboundAir.removeAll()
        outboundLanded = nil
    }
}
