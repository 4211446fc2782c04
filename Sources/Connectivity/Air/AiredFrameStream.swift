import Posix

/// Frames through the watch's air (`LinkAir`) on a connection that is not a session's: `watch-os`'s own,
/// which holds the watch's link while the watch app is not running (docs/link-conditions.md). The rule is
/// a session connection's (`UnixLinkConnectionAir.swift`): each frame written waits in the air, then goes
/// to the socket; each frame read waits in the air, then is handed on; a lost frame cuts the connection
/// where it would have arrived. With clear air frames go straight through, as before.
///
/// Its traffic is small — a hello out; a welcome, an `appState`, the first content in (at which watch-os
/// launches the app and closes this) — so what it holds is bounded simply: at most
/// `maximumInboundAirBytes` decoded into the air, the rest left in the socket's buffer (whose reading
/// pauses, `SocketStream.maximumInboundBytes`).
package final class AiredFrameStream {
    package static let maximumInboundAirBytes = 1 << 20

    package let stream: SocketStream
    private let loop: EventLoop
    private let air: LinkAir
    private let decoder = FrameDecoder()
    private var outboundPipe = LinkPipe()
    private var inboundPipe = LinkPipe()
    private var outboundAir = AirQueue<[UInt8]>()
    private var inboundAir = AirQueue<Frame>()
    private var outboundTimer: EventLoop.TimerID?
    private var inboundTimer: EventLoop.TimerID?
    private var ended = false

    /// Frames that arrived, in order.
    package var onFrames: ([Frame]) -> Void = { _ in }
    /// The connection ended by itself: the phone closed it, it sent a malformed frame, or a frame was
    /// lost in the air (the cut). Not called for `close(_:)`.
    package var onEnd: (String) -> Void = { _ in }

    package init(stream: SocketStream, loop: EventLoop, air: LinkAir) {
        self.stream = stream
        self.loop = loop
        self.air = air
    }

    package func start() {
        stream.onRead = { [unowned self] _ in self.read() }
        stream.onClose = { [unowned self] _, reason in self.end("\(reason)") }
        stream.start()
    }

    /// Whole frames, through the air.
    package func send(_ bytes: [UInt8]) {
        guard !ended else { return }
        guard !air.shape.isClear || !outboundAir.isEmpty else { return stream.write(bytes) }
        let verdict = outboundPipe.admit(bytes: bytes.count, now: loop.nowNanoseconds, shape: air.shape, random: &air.random)
        air.framesCarried += 1
        outboundAir.append(bytes, bytes: bytes.count, verdict)
        noteHeld()
        armOutbound()
    }

    /// Closes it; what is in the air goes with it.
    package func close(_ reason: String) {
        guard !ended else { return }
        ended = true
        discardAir()
        stream.onClose = nil
        stream.close(.localClose(reason))
    }

    /// What it holds in the air now, both ways.
    package var bytesInAir: Int { outboundAir.heldBytes + inboundAir.heldBytes }

    // MARK: - Out

    private func armOutbound() {
        guard outboundTimer == nil, let next = outboundAir.nextArrival else { return }
        let now = loop.nowNanoseconds
        outboundTimer = loop.schedule(afterNanoseconds: next > now ? next - now : 0) { [weak self] in
            guard let self else { return }
            self.outboundTimer = nil
            let (due, cut) = self.outboundAir.takeDue(now: self.loop.nowNanoseconds)
            for bytes in due { self.stream.write(bytes) }
            if cut { return self.cutByLoss("to the phone") }
            self.armOutbound()
        }
    }

    // MARK: - In

    private func read() {
        guard !ended else { return }
        let direct = air.shape.isClear && inboundAir.isEmpty
        let now = loop.nowNanoseconds
        var frames: [Frame] = []
        var failure: FrameError?
        stream.inbound.withReadable { raw in
            var offset = 0
            do throws(FrameError) {
                while direct || inboundAir.heldBytes < Self.maximumInboundAirBytes,
                    let (frame, consumed) = try decoder.decode(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                {
                    offset += consumed
                    if direct {
                        frames.append(frame)
                        continue
                    }
                    let verdict = inboundPipe.admit(bytes: consumed, now: now, shape: air.shape, random: &air.random)
                    air.framesCarried += 1
                    inboundAir.append(frame, bytes: consumed, verdict)
                }
            } catch {
                failure = error
            }
            return offset
        }
        if !frames.isEmpty { onFrames(frames) }
        if let failure { return end("malformed frames from the phone: \(failure)") }
        noteHeld()
        armInbound()
    }

    private func armInbound() {
        guard !ended, inboundTimer == nil, let next = inboundAir.nextArrival else { return }
        let now = loop.nowNanoseconds
        inboundTimer = loop.schedule(afterNanoseconds: next > now ? next - now : 0) { [weak self] in
            guard let self else { return }
            self.inboundTimer = nil
            let (due, cut) = self.inboundAir.takeDue(now: self.loop.nowNanoseconds)
            if !due.isEmpty { self.onFrames(due) }
            guard !self.ended else { return }
            if cut { return self.cutByLoss("from the phone") }
            self.armInbound()
            if !self.stream.isClosed {
                self.stream.resumeReadingIfRoom()
                self.read()
            }
        }
    }

    // MARK: - Ending

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

    private func noteHeld() { air.mostBytesInAir = max(air.mostBytesInAir, bytesInAir) }

    private func cutByLoss(_ direction: String) {
        air.framesLost += 1
        end("a frame \(direction) was lost in the air (loss \(air.shape.loss))")
    }

    private func end(_ reason: String) {
        guard !ended else { return }
        ended = true
        discardAir()
        stream.onClose = nil
        if !stream.isClosed { stream.close(.localClose(reason)) }
        onEnd(reason)
    }

    private func discardAir() {
        if let outboundTimer { loop.cancel(outboundTimer) }
        if let inboundTimer { loop.cancel(inboundTimer) }
        outboundTimer = nil
        inboundTimer = nil
        outboundAir.removeAll()
        inboundAir.removeAll()
    }
}
