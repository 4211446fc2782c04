import Posix

/// What arrives through the air on the way in: a frame, or the counterpart's hang-up (which must not
/// overtake the frames it sent before it).
enum AirArrival {
    case frame(Frame)
    case closed(SocketStream.CloseReason)
}

/// The link conditions on one connection (`LinkAir`): each frame the watch writes waits in the air until
/// it arrives, then goes to the socket; each frame it reads waits until it arrives, then goes to the
/// session. Timers on the device's loop, no thread sleeps; a lost frame cuts the connection where it
/// would have arrived, and the connector reconnects as after any cut.
///
/// Memory stays bounded: what is in the air outbound counts as pending output (the session stops at its
/// high-water mark), and at most `maximumInboundAirBytes` are decoded into the air inbound — the rest
/// waits in the socket's buffer, whose reading pauses, so the kernel pushes back on the phone.
extension UnixLinkConnection {
    static let maximumInboundAirBytes = 1 << 20

    /// Whether frames go through the air: conditions are set, or frames from before are still in it (a
    /// frame sent after the air cleared must not overtake them).
    var usesAir: Bool {
        guard let air else { return false }
        return !air.shape.isClear || !outboundAir.isEmpty || !inboundAir.isEmpty
    }

    /// TEST ONLY (`LinkAir.lossSkipsFrames`): a frame lost once the connection is established vanishes
    /// without a cut. The handshake's frames still cut when lost: a lost hello or welcome would otherwise
    /// cost the handshake's whole time-out (5 s) for each, which the rule under test does not need.
    private var skipsLostFrames: Bool { air?.lossSkipsFrames == true && state == .established }

    /// What this connection holds in the air now, both ways.
    var bytesInAir: Int { outboundAir.heldBytes + inboundAir.heldBytes }

    // MARK: - Out

    /// Whole frames to the counterpart, through the air.
    func transmit(_ bytes: [UInt8]) {
        guard let air, usesAir else {
            stream.write(bytes)
            return
        }
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
        air.mostBytesInAir = max(air.mostBytesInAir, bytesInAir)
        armOutbound()
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
        guard state != .closed, !stream.isClosed else { return }
        let (due, cut) = outboundAir.takeDue(now: loop.nowNanoseconds, skippingLost: skipsLostFrames)
        for bytes in due { stream.write(bytes) }
        if cut {
            cutByLoss("to the phone")
            return
        }
        armOutbound()
        if outboundAir.isEmpty, drainRequested {
            drainRequested = false
            requestStreamDrain()
        }
    }

    /// The air cleared: what is in it arrives now, both ways (`AirQueue.land`).
    func landTheAir() {
        let now = loop.nowNanoseconds
        outboundAir.land(at: now)
        inboundAir.land(at: now)
        if let outboundTimer { loop.cancel(outboundTimer) }
        if let inboundTimer { loop.cancel(inboundTimer) }
        (outboundTimer, inboundTimer) = (nil, nil)
        armOutbound()
        armInbound()
    }

    // MARK: - In

    /// Cuts whole frames out of what was read into the air, while it has room; a bad frame closes the
    /// connection at once (nothing after it can be trusted).
    func readIntoAir(draining: Bool = false) {
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
        if let failure {
            deliver([], error: failure)
            return
        }
        air.mostBytesInAir = max(air.mostBytesInAir, bytesInAir)
        armInbound()
        if state != .closed, !stream.isClosed { stream.resumeReadingIfRoom() }
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
        guard state != .closed else { return }
        let (due, cut) = inboundAir.takeDue(now: loop.nowNanoseconds, skippingLost: skipsLostFrames)
        var frames: [Frame] = []
        for arrival in due {
            switch arrival {
            case let .frame(frame): frames.append(frame)
            case let .closed(reason):
                deliver(frames, error: nil)
                didClose(reason, unfinishedBytes: 0)
                return
            }
        }
        deliver(frames, error: nil)
        if state == .closed { return }
        if cut {
            cutByLoss("from the phone")
            return
        }
        if stream.isClosed {
            armInbound()
        } else {
            readIntoAir()
        }
    }

    // MARK: - Closing

    /// The socket closed. Our own close is final at once; the counterpart's hang-up (or a reset) arrives
    /// after the frames it sent before it, which are still in the air.
    func streamDidClose(_ reason: SocketStream.CloseReason) {
        let local = if case .localClose = reason { true } else { false }
        guard !local, usesAir else {
            didClose(reason, unfinishedBytes: stream.inbound.readableCount)
            return
        }
        readIntoAir(draining: true)
        guard state != .closed else { return }
        let arrival = max(loop.nowNanoseconds, inboundPipe.lastArrival)
        inboundAir.append(.closed(reason), bytes: 0, .arrive(at: arrival))
        armInbound()
    }

    private func cutByLoss(_ direction: String) {
        guard let air else { return }
        air.framesLost += 1
        logger.info("link.frame-lost", ["direction": direction, "loss": air.shape.loss, "lost": air.framesLost])
        close(error: nil, reason: "a frame \(direction) was lost in the air (loss \(air.shape.loss)): the link is cut and the watch reconnects")
    }

    /// What is in the air goes with the connection.
    func discardAir() {
        if let outboundTimer { loop.cancel(outboundTimer) }
        if let inboundTimer { loop.cancel(inboundTimer) }
        outboundTimer = nil
        inboundTimer = nil
        outboundAir.removeAll()
        inboundAir.removeAll()
        drainRequested = false
    }
}
