import Foundation
import PropertyLists

/// A queued userInfo transfer, as `transferUserInfo(_:)` returns it and `didFinish` reports it.
///
/// `userInfo` is read from the session's queue when first asked for (the drain of a large backlog does
/// not decode every dictionary back for nothing); a transfer whose row is gone by then — asked long after
/// it finished — reads as empty.
open class WCSessionUserInfoTransfer: NSObject, @unchecked Sendable {
    /// The transfer's id on this device (the simulator's; Apple's transfers have no public id). A
    /// complication transfer's id counts in its own queue (`isComplicationTransfer`).
    public let transferIdentifier: Int64
    /// Went in the complication queue (`transferCurrentComplicationUserInfo` within the day's budget).
    public let isComplicationTransfer: Bool
    private let session: WCSession?
    private var loaded: [String: Any]?
    private let loader: (() -> [String: PropertyListValue]?)?

    init(
        session: WCSession?, identifier: Int64, userInfo: [String: Any]? = nil, complication: Bool = false,
        loader: (() -> [String: PropertyListValue]?)? = nil
    ) {
        self.session = session
        transferIdentifier = identifier
        isComplicationTransfer = complication
        loaded = userInfo
        self.loader = loader
        super.init()
    }

    /// True for a complication transfer that is the newest one this app queued: only the newest is the
    /// complication's current data. False for a plain userInfo transfer — also one made by
    /// `transferCurrentComplicationUserInfo` once the day's budget was spent.
    open var isCurrentComplicationInfo: Bool {
        guard isComplicationTransfer else { return false }
        return session?.isCurrentComplication(transferIdentifier) ?? false
    }

    /// The dictionary that was (or is being) transferred.
    open var userInfo: [String: Any] {
        if let loaded { return loaded }
        let value = loader?().map(PropertyListBridge.untyped) ?? [:]
        loaded = value
        return value
    }

    /// True until the counterpart has it (Apple: "true if the data has not yet been transferred"), for
    /// queued transfers too.
    open var isTransferring: Bool { session?.isOutstanding(transferIdentifier, complication: isComplicationTransfer) ?? false }

    /// Cancels the transfer if it has not been sent yet; nothing happens once it is on its way.
    open func cancel() { session?.cancelTransfer(transferIdentifier, complication: isComplicationTransfer) }

    open override var description: String { "<WCSessionUserInfoTransfer \(transferIdentifier) transferring=\(isTransferring)>" }
}

/// A received file, as `session(_:didReceive:)` hands it over — or the file of a transfer this app started.
open class WCSessionFile: NSObject, @unchecked Sendable {
    /// Where the file is. Received: in the app's `Documents/Inbox`; move it before the callback returns,
    /// or it is deleted. Sent: the URL the app gave `transferFile`.
    public let fileURL: URL
    public let metadata: [String: Any]?
    /// RunWay Pair: the sender's id for the transfer (0 when unknown) and the sending device, so an app
    /// can tell a file delivered again after a crash from a new one (Apple's file has no id).
    public let transferIdentifier: Int64
    public let senderDeviceID: String
    /// RunWay Pair: the file's size and its SHA-256 (lowercase hex), as the session checked it end to end.
    public let byteCount: Int64
    public let sha256: String

    init(
        fileURL: URL, metadata: [String: Any]?, transferIdentifier: Int64 = 0, senderDeviceID: String = "", byteCount: Int64 = 0,
        sha256: String = ""
    ) {
        self.fileURL = fileURL
        self.metadata = metadata
        self.transferIdentifier = transferIdentifier
        self.senderDeviceID = senderDeviceID
        self.byteCount = byteCount
        self.sha256 = sha256
        super.init()
    }
}

/// A file transfer this app started (`transferFile(_:metadata:)`).
open class WCSessionFileTransfer: NSObject, @unchecked Sendable {
    public let file: WCSessionFile
    /// The transfer's progress: `totalUnitCount` is the file's size, `completedUnitCount` the bytes the
    /// counterpart has made durable; `fractionCompleted` advances as they arrive.
    public let progress: Progress
    /// RunWay Pair: the transfer's id on this device (its place in the file queue; 0 for one that was
    /// never queued).
    public let transferIdentifier: Int64
    private weak var session: WCSession?

    init(session: WCSession?, identifier: Int64, file: WCSessionFile, totalBytes: Int64) {
        self.session = session
        transferIdentifier = identifier
        self.file = file
        progress = TransferProgress(totalUnitCount: max(totalBytes, 1))
        if totalBytes == 0, session != nil { progress.completedUnitCount = 0 }
        super.init()
    }

    /// True until the counterpart has the file (queued ones included), as for userInfo transfers.
    open var isTransferring: Bool {
        guard transferIdentifier > 0, let session else { return false }
        return session.isFileOutstanding(transferIdentifier)
    }

    /// Cancels the transfer: a queued one leaves the queue, the one being sent stops (the counterpart
    /// drops what it has) — unless every byte is already on its way.
    open func cancel() {
        guard transferIdentifier > 0, let session else { return }
        session.cancelFile(transferIdentifier)
        if !session.isFileOutstanding(transferIdentifier) { progress.cancel() }
    }

    open override var description: String {
        "<WCSessionFileTransfer \(transferIdentifier) \(file.fileURL.lastPathComponent) \(progress.completedUnitCount)/\(progress.totalUnitCount)>"
    }
}
