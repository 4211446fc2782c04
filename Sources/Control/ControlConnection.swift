import Connectivity
import JSONText
import Posix

/// One client of a daemon's control socket: takes its requests one at a time and writes the replies,
/// pulling streamed results only as fast as the client reads them. A client that sends requests without
/// reading the replies is paced: past 1 MiB of unread replies its next requests wait unread.
///
/// A client that cannot speak the protocol is closed with a logged reason (`control.bad-frame`,
/// `control.timeout`, `control.closed-mid-frame`), after an error response where it can still read one.
/// Time-outs (see `ControlServer`): a client must send a whole request within `requestTimeout` of
/// connecting and finish any request within `requestTimeout` of its first byte; between requests it may
/// idle for `idleTimeout`. An attached UI client, and one waiting for its reply, never times out.
package final class ControlConnection {
    package let stream: SocketStream
    private let decoder = ControlFrameDecoder(maximumLength: ControlClient.frameLimit)
    private unowned let server: ControlServer
    private var streaming: (() throws -> [UInt8]?)?
    /// A UI client: receives `event` frames (`attach()`).
    package private(set) var isAttached = false
    /// Follows the delegate trace (`runway … events --follow`, `follow()`): receives its `event` frames
    /// only, and like an attached UI never times out and is detached if it stops reading.
    package private(set) var isFollowing = false
    /// Attached or following: holds its connection for as long as it likes, within its own budget
    /// (`ControlServer.maximumFollowers`), never the requests'.
    var isFollower: Bool { isAttached || isFollowing }
    /// Called when the connection goes (a UI client detaching).
    package var onClose: (() -> Void)?

    // MARK: Time-out state
    /// Requests read whose reply has not been written completely yet.
    private var repliesOwed = 0
    private var heardRequest = false
    /// When the connection started waiting for the client (connected, or finished its last reply).
    private var waitingSince: UInt64
    /// When the first byte of a request still incomplete arrived.
    private var partialSince: UInt64?
    private var timer: EventLoop.TimerID?
    private var timerDeadline: UInt64 = 0

    /// The order connections were accepted in: the oldest silent one is evicted first at the cap.
    let serial: UInt64

    /// Not yet a client at all: has sent no whole request, is not attached and is owed nothing. At the
    /// cap, the oldest such connection makes room for a new one (a flood of silent connections must not
    /// lock the CLI out).
    var isSilent: Bool { !heardRequest && !isAttached && !isFollowing && repliesOwed == 0 && streaming == nil }

    /// Between requests: has been answered in full (and has read it all) and has not begun another. At the cap, the oldest such
    /// connection makes room after the silent ones (it may ask again on a new connection).
    var isIdle: Bool {
        heardRequest && !isFollower && repliesOwed == 0 && streaming == nil && stream.inbound.isEmpty && stream.pendingOutboundBytes == 0
    }

    init(stream: SocketStream, server: ControlServer, serial: UInt64) {
        self.stream = stream
        self.server = server
        self.serial = serial
        waitingSince = server.loop.nowNanoseconds
    }

    /// Whether this connection may become a follower now (`attach`, `follow`): a refusal is one line,
    /// exit 1, and the connection stays an ordinary client.
    package func checkFollowerRoom() throws(ControlError) { try server.admitFollower(self) }

    /// Makes this connection an attached UI client, within the followers' budget.
    package func attach() throws(ControlError) {
        try server.admitFollower(self)
        isAttached = true
    }

    /// Makes this connection a follower of the delegate trace, within the followers' budget.
    package func follow() throws(ControlError) {
        try server.admitFollower(self)
        isFollowing = true
    }

    func start() {
        stream.onRead = { [unowned self] _ in self.processRequests() }
        stream.onClose = { [unowned self] stream, reason in
            if let timer = self.timer { self.server.loop.cancel(timer) }
            if reason == .endOfFile, stream.inbound.readableCount > 0 {
                self.server.logger.warning("control.closed-mid-frame", ["unfinishedBytes": stream.inbound.readableCount])
            }
            self.streaming = nil
            let onClose = self.onClose
            self.onClose = nil
            // Forgotten by the server first (which may free this connection), so `onClose` sees the
            // clients that remain.
            self.server.connectionDidClose(self)
            onClose?()
        }
        stream.start()
        armTimer(at: waitingSince + server.requestTimeoutMilliseconds * 1_000_000)
    }

    /// Replies queued beyond this, the client's next requests wait unread: a client that pipelines
    /// requests without reading the replies is paced (its requests back up into the kernel), not buffered.
    static let outboundHighWater = 1 << 20
    /// An attached UI that lets this much of its events pile up unread is detached.
    static let maximumUnreadEventBytes = 4 << 20

    private func processRequests() {
        var consumedAny = false
        while streaming == nil && !stream.isClosed {
            if stream.pendingOutboundBytes >= Self.outboundHighWater {
                resumeWhenDrained()
                break
            }
            let next: (frame: ControlFrame, consumed: Int)?
            do {
                next = try stream.inbound.withReadableBytes { (raw) throws(FrameError) in try decoder.decode(raw) }
            } catch {
                server.logger.warning("control.bad-frame", ["error": "\(error)"])
                closeWithError(ControlError.invalid("bad frame: \(error)"), reason: "bad frame: \(error)")
                return
            }
            guard let (frame, consumed) = next else { break }
            stream.inbound.consume(consumed)
            consumedAny = true
            heardRequest = true
            repliesOwed += 1
            guard frame.type == .request else {
                reply(error: .invalid("expected a request frame, got \(frame.type)"))
                continue
            }
            let request: ControlRequest
            do {
                request = try ControlRequest(json: try JSONValue(parsing: frame.payload))
                if let expected = request.arguments["role"]?.stringValue, expected != server.role.rawValue {
                    throw ControlError.invalid(
                        "\(server.home) is a \(server.role.rawValue) home, not a \(DeviceRole(rawValue: expected)?.rawValue ?? OneLine.quote(expected, limit: 20)) home"
                    )
                }
            } catch let error as ControlError {
                reply(error: error)
                continue
            } catch {
                reply(error: .invalid("malformed request: \(error)"))
                continue
            }
            do {
                try server.handler?(request, self)
            } catch {
                reply(error: server.replyError(for: error, command: request.command))
            }
        }
        guard !stream.isClosed else { return }
        if stream.inbound.isEmpty {
            partialSince = nil
        } else if consumedAny || partialSince == nil {
            partialSince = server.loop.nowNanoseconds
            armTimer(at: partialSince! + server.requestTimeoutMilliseconds * 1_000_000)
        }
        stream.resumeReadingIfRoom()
    }

    // MARK: - Replies

    /// Replies with a command's typed reply, as its type encodes it.
    package func reply(_ result: some ControlReply) {
        reply(result.json)
    }

    package func reply(_ result: JSONValue) {
        var writer = JSONWriter()
        writer.write(result)
        reply(body: writer.bytes)
    }

    package func reply(body: [UInt8]) {
        var bytes = ControlFrame(.response, Array(#"{"ok":true}"#.utf8)).encoded
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + ControlProtocol.chunkBytes)
            ControlFrame.appendHeader(type: .chunk, payloadLength: end - offset, to: &bytes)
            bytes.append(contentsOf: body[offset..<end])
            offset = end
        }
        bytes.append(contentsOf: ControlFrame(.end).encoded)
        stream.write(bytes)
        replyFinished()
    }

    package func reply(error: ControlError) {
        stream.write(Self.errorReply(error))
        replyFinished()
    }

    static func errorReply(_ error: ControlError) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(.object(["ok": .bool(false), "error": error.json]))
        var bytes = ControlFrame(.response, writer.bytes).encoded
        bytes.append(contentsOf: ControlFrame(.end).encoded)
        return bytes
    }

    /// Streams a result: `next` is called for the next piece of JSON text whenever the socket has
    /// drained, until it returns nil. Memory stays bounded by one piece, however long the result.
    package func replyStreaming(_ next: @escaping () throws -> [UInt8]?) {
        stream.write(ControlFrame(.response, Array(#"{"ok":true}"#.utf8)).encoded)
        streaming = next
        continueStreaming()
    }

    private func continueStreaming() {
        guard let next = streaming, !stream.isClosed else { return }
        while stream.pendingOutboundBytes < 1 << 20 {
            let piece: [UInt8]?
            do {
                piece = try next()
            } catch {
                server.logger.error("control.stream-failed", ["error": "\(error)"])
                stream.close(.localClose("stream failed: \(error)"))
                return
            }
            guard let piece else {
                streaming = nil
                stream.write(ControlFrame(.end).encoded)
                replyFinished()
                processRequests()
                return
            }
            if !piece.isEmpty { stream.write(ControlFrame(.chunk, piece).encoded) }
        }
        stream.onWritable = { [unowned self] stream in
            stream.onWritable = nil
            stream.wantsWritable = false
            self.continueStreaming()
        }
        stream.wantsWritable = true
    }

    private func resumeWhenDrained() {
        stream.onWritable = { [unowned self] stream in
            stream.onWritable = nil
            stream.wantsWritable = false
            self.processRequests()
        }
        stream.wantsWritable = true
    }

    // MARK: - Time-outs

    private func replyFinished() {
        repliesOwed = max(0, repliesOwed - 1)
        guard repliesOwed == 0, streaming == nil, !stream.isClosed else { return }
        waitingSince = server.loop.nowNanoseconds
        armTimer(at: deadline().at)
    }

    /// When the client must have made progress by, and what it will be told if it has not.
    private func deadline() -> (at: UInt64, why: String) {
        let request = server.requestTimeoutMilliseconds, idle = server.idleTimeoutMilliseconds
        if let partialSince {
            let why =
                stream.pendingOutboundBytes >= Self.outboundHighWater
                ? "has not read its replies for \(request) ms" : "a request begun more than \(request) ms ago is still incomplete"
            return (partialSince + request * 1_000_000, why)
        }
        if !heardRequest {
            return (waitingSince + request * 1_000_000, "no request within \(request) ms of connecting")
        }
        return (waitingSince + idle * 1_000_000, "idle for \(idle) ms between requests")
    }

    /// One timer per connection, moved earlier when a nearer deadline appears; when it fires it checks
    /// the state afresh (a busy or attached connection is left alone, and re-armed when its reply ends).
    private func armTimer(at deadline: UInt64) {
        if timer != nil, timerDeadline <= deadline { return }
        if let timer { server.loop.cancel(timer) }
        timerDeadline = deadline
        let now = server.loop.nowNanoseconds
        timer = server.loop.schedule(afterNanoseconds: deadline > now ? deadline - now : 0) { [weak self] in
            self?.timerFired()
        }
    }

    private func timerFired() {
        timer = nil
        guard !stream.isClosed, !isAttached, !isFollowing, repliesOwed == 0, streaming == nil else { return }
        let (at, why) = deadline()
        guard server.loop.nowNanoseconds >= at else { return armTimer(at: at) }
        server.logger.warning("control.timeout", ["reason": why])
        closeWithError(ControlError(why), reason: "timed out: \(why)")
    }

    /// Tells the client why (an error response, if it still reads), then closes.
    func closeWithError(_ error: ControlError, reason: String) {
        stream.write(Self.errorReply(error))
        stream.closeAfterFlushing(.localClose(reason))
    }

    /// An unsolicited event, for attached UI clients.
    package func sendEvent(_ event: JSONValue) {
        var writer = JSONWriter()
        writer.write(event)
        sendEvent(body: writer.bytes)
    }

    /// An event whose JSON text is already written (one encoding for every client).
    ///
    /// A UI client that stops reading (suspended, or a terminal scrolled back) is detached once
    /// `maximumUnreadEventBytes` wait for it, rather than let its backlog grow without bound in the
    /// daemon. It can attach again; saving never depended on it.
    package func sendEvent(body: [UInt8]) {
        guard !stream.isClosed else { return }
        guard stream.pendingOutboundBytes < Self.maximumUnreadEventBytes else {
            server.logger.warning("control.events-unread", ["queuedBytes": stream.pendingOutboundBytes, "action": "detached"])
            stream.close(.localClose("the attached client does not read its events"))
            return
        }
        stream.write(ControlFrame(.event, body).encoded)
    }
}
