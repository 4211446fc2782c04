/// One established link to the counterpart, as the session sees it: somewhere to write whole frames.
package protocol LinkChannel: AnyObject {
    /// Queues whole frames for sending.
    func send(_ frames: [UInt8])
    /// Bytes queued but not yet taken by the kernel: the session stops producing above a high-water mark.
    var pendingOutboundBytes: Int { get }
    /// Asks to be told (`Session.channelDidDrain`) when the queued bytes have gone.
    func requestDrainNotification()
    /// Sends `error` if given, then closes; the session hears `channelDidClose`.
    func close(error: WCError?, reason: String)
    /// Hands the session, now, the frames the counterpart has already sent (a watch switch delivers them
    /// before the link closes). A link with nothing in transit does nothing.
    func receiveWhatArrived()
    /// Fault injection: stop reading (what the counterpart sends waits in transit), or read again.
    func holdReceiving(_ held: Bool)
}

extension LinkChannel {
    package func receiveWhatArrived() {}
    package func holdReceiving(_ held: Bool) {}
}

/// How the session reaches its counterpart: the phone listens, the watch connects.
package protocol LinkTransport: AnyObject {
    /// Starts accepting or connecting; called when the session activates.
    func start(_ session: Session) throws
    /// Whether a link is expected as soon as it starts (the phone: a connection its OS handed over; the
    /// watch: in range): activation is announced once that first attempt settles.
    var expectsLinkAtStart: Bool { get }
    /// Closes every connection and stops.
    func stop()
    /// Whether `wakeCounterpart` can reach a counterpart app that is not running (the watch's connector
    /// while the link is in range: a message makes phone-os launch the phone app).
    var canWakeCounterpart: Bool { get }
    /// Connects now, saying in the handshake that messages are waiting (`Handshake.pendingMessages`); the
    /// session hears the outcome: `channelDidOpen`, or `linkAttemptFailed`.
    func wakeCounterpart()
}

extension LinkTransport {
    package var expectsLinkAtStart: Bool { false }
    package var canWakeCounterpart: Bool { false }
    package func wakeCounterpart() {}
}
