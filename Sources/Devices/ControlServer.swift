import Connectivity
import Glibc
import JSONText
import Posix

/// One client of a daemon's control socket: takes its requests one at a time and writes the replies,
/// pulling streamed results only as fast as the client reads them.
public final class ControlConnection {
    public let stream: SocketStream
    private let decoder = FrameDecoder(maximumLength: 1 << 20)
    private unowned let server: ControlServer
    private var streaming: (() throws -> [UInt8]?)?
    /// A UI client: receives `event` frames.
    public var isAttached = false
    /// Called when the connection goes (a UI client detaching).
    public var onClose: (() -> Void)?

    init(stream: SocketStream, server: ControlServer) {
        self.stream = stream
        self.server = server
    }

    func start() {
        stream.onRead = { [unowned self] _ in self.processRequests() }
        stream.onClose = { [unowned self] _, _ in
            self.streaming = nil
            let onClose = self.onClose
            self.onClose = nil
            // Forgotten by the server first (which may free this connection), so `onClose` sees the
            // clients that remain.
            self.server.connectionDidClose(self)
            onClose?()
        }
        stream.start()
    }

    private func processRequests() {
        while streaming == nil && !stream.isClosed {
            let next: (frame: Frame, consumed: Int)?
            do {
                next = try stream.inbound.withReadableBytes { (raw) throws(FrameError) in try decoder.decode(raw) }
            } catch {
                server.logger.warning("control.bad-frame", ["error": "\(error)"])
                stream.close(.localClose("bad frame: \(error)"))
                return
            }
            guard let (frame, consumed) = next else { break }
            stream.inbound.consume(consumed)
            guard frame.type == .request else {
                reply(error: .invalid("expected a request frame, got \(frame.type)"))
                continue
            }
            do {
                let request = try ControlRequest(json: try JSONValue(parsing: frame.payload))
                server.handler?(request, self)
            } catch let error as ControlError {
                reply(error: error)
            } catch {
                reply(error: .invalid("malformed request: \(error)"))
            }
        }
        stream.resumeReadingIfRoom()
    }

    // MARK: - Replies

    public func reply(_ result: JSONValue) {
        var writer = JSONWriter()
        writer.write(result)
        reply(body: writer.bytes)
    }

    public func reply(body: [UInt8]) {
        var bytes = Frame(.response, Array(#"{"ok":true}"#.utf8)).encoded
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + ControlProtocol.chunkBytes)
            Frame.appendHeader(type: .chunk, payloadLength: end - offset, to: &bytes)
            bytes.append(contentsOf: body[offset..<end])
            offset = end
        }
        bytes.append(contentsOf: Frame(.end).encoded)
        stream.write(bytes)
    }

    public func reply(error: ControlError) {
        var writer = JSONWriter()
        writer.write(.object(["ok": .bool(false), "error": error.json]))
        var bytes = Frame(.response, writer.bytes).encoded
        bytes.append(contentsOf: Frame(.end).encoded)
        stream.write(bytes)
    }

    /// Streams a result: `next` is called for the next piece of JSON text whenever the socket has
    /// drained, until it returns nil. Memory stays bounded by one piece, however long the result.
    public func replyStreaming(_ next: @escaping () throws -> [UInt8]?) {
        stream.write(Frame(.response, Array(#"{"ok":true}"#.utf8)).encoded)
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
                stream.write(Frame(.end).encoded)
                processRequests()
                return
            }
            if !piece.isEmpty { stream.write(Frame(.chunk, piece).encoded) }
        }
        stream.onWritable = { [unowned self] stream in
            stream.onWritable = nil
            stream.wantsWritable = false
            self.continueStreaming()
        }
        stream.wantsWritable = true
    }

    /// An unsolicited event, for attached UI clients.
    public func sendEvent(_ event: JSONValue) {
        var writer = JSONWriter()
        writer.write(event)
        sendEvent(body: writer.bytes)
    }

    /// An event whose JSON text is already written (one encoding for every client).
    ///
    /// A UI client that stops reading (suspended, or a terminal scrolled back) is dropped once
    /// `maximumPendingEventBytes` wait for it, rather than let its backlog grow without bound in the
    /// daemon. It can attach again; saving never depended on it.
    public func sendEvent(body: [UInt8]) {
        guard !stream.isClosed else { return }
        if stream.pendingOutboundBytes > ControlConnection.maximumPendingEventBytes {
            server.logger.warning("ui.dropped", ["reason": "not reading its events", "pendingBytes": stream.pendingOutboundBytes])
            stream.close(.localClose("UI client not reading its events"))
            return
        }
        stream.write(Frame(.event, body).encoded)
    }

    public static let maximumPendingEventBytes = 8 << 20
}

/// A daemon's control socket: accepts local clients of the same user and hands their requests to
/// the daemon's handler.
public final class ControlServer {
    public typealias Handler = (ControlRequest, ControlConnection) -> Void

    public let address: UnixSocketAddress
    let logger: Logger
    private let loop: EventLoop
    private var listener: FileDescriptor?
    private var connections: [ObjectIdentifier: ControlConnection] = [:]
    public var handler: Handler?
    public var maximumConnections = 256

    public init(address: UnixSocketAddress, loop: EventLoop, logger: Logger) {
        self.address = address
        self.loop = loop
        self.logger = logger
    }

    public func start() throws {
        let fd = try UnixSocket.listen(at: address)
        listener = fd
        loop.register(fd.rawValue, interest: .readable) { [unowned self] _ in self.acceptPending() }
    }

    public func stop() {
        for connection in connections.values { connection.stream.close(.localClose("daemon shutting down")) }
        connections.removeAll()
        if let listener {
            loop.unregister(listener.rawValue)
            listener.close()
            unlink(address.path)
        }
        listener = nil
    }

    public var attachedClients: [ControlConnection] { connections.values.filter(\.isAttached) }

    func connectionDidClose(_ connection: ControlConnection) {
        connections[ObjectIdentifier(connection)] = nil
    }

    private func acceptPending() {
        guard let listener else { return }
        while true {
            let fd: FileDescriptor
            do {
                guard let accepted = try UnixSocket.accept(from: listener) else { return }
                fd = accepted
            } catch {
                logger.error("control.accept-failed", ["error": "\(error)"])
                return
            }
            if let peer = try? UnixSocket.peerCredentials(of: fd), peer.uid != getuid() {
                logger.warning("control.refused-uid", ["peerUID": peer.uid, "peerPID": peer.pid])
                fd.close()
                continue
            }
            guard connections.count < maximumConnections else {
                logger.warning("control.too-many-clients", ["clients": connections.count])
                fd.close()
                continue
            }
            let connection = ControlConnection(stream: SocketStream(descriptor: fd, loop: loop), server: self)
            connections[ObjectIdentifier(connection)] = connection
            connection.start()
        }
    }
}
