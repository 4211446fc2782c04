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

/// A received file, as `session(_:didReceive:)` hands it over.
open class WCSessionFile: NSObject, @unchecked Sendable {
    /// Where the file is now: move it before the callback returns, or it is deleted.
    public let fileURL: URL
    public let metadata: [String: Any]?

    init(fileURL: URL, metadata: [String: Any]?) {
        self.fileURL = fileURL
        self.metadata = metadata
        super.init()
    }
}

/// A file transfer this app started (`transferFile(_:metadata:)`).
open class WCSessionFileTransfer: NSObject, @unchecked Sendable {
    public let file: WCSessionFile
    /// The transfer's progress (`fractionCompleted`).
    public let progress: Progress
    private var transferring: Bool

    init(file: WCSessionFile, transferring: Bool) {
        self.file = file
        self.transferring = transferring
        progress = Progress(totalUnitCount: 1)
        super.init()
    }

    open var isTransferring: Bool { transferring }

    open func cancel() {
        transferring = false
        progress.cancel()
    }
}
