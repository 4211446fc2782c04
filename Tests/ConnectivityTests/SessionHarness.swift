import ConnectivityTesting
import Posix
import Storage
@testable import Connectivity
import PairTesting
import PropertyLists
import Testing

/// A recording handler: what arrived, in order, and how to answer.
final class RecordingDelegate: SessionHandler {
    var activations: [(ActivationState, Error?)] = []
    var received: [(UserInfo, ReceivedTransfer)] = []
    /// Received inside a transaction that has not committed (yet).
    var uncommitted: [(UserInfo, ReceivedTransfer)] = []
    var commits = 0
    var rollbacks = 0
    var finished: [FinishedTransfer] = []
    var contexts: [UserInfo] = []
    var messages: [UserInfo] = []
    /// Messages whose sender expected no reply (`didReceiveMessage` without a reply handler).
    var messagesWithoutReply: [UserInfo] = []
    var reachabilityChanges = 0
    var watchStateChanges = 0
    var deactivations = 0
    /// Files received: what the delegate was handed and the bytes it read at that moment.
    var files: [(file: ReceivedFile, bytes: [UInt8])] = []
    /// What the delegate answers a received file with.
    var fileOutcome: ReceiveOutcome = .accepted
    /// Progress reports of this side's file transfers: (transfer, completed, total).
    var fileProgress: [(seq: Int64, completed: Int64, total: Int64)] = []
    /// How the app answers messages: nil never replies.
    var answer: ((UserInfo) -> UserInfo?)? = { ["echo": .dictionary($0)] }
    /// Answer `.notNow` for transfers with these seqs.
    var refuse: Set<Int64> = []

    func handle(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome? {
        switch callback {
        case let .activationDidComplete(state, error): activations.append((state, error))
        case .didBecomeInactive, .willReceiveTransfers, .willCommitReceivedTransfers: break
        case .didDeactivate: deactivations += 1
        case .didReceiveEncodedUserInfo: return nil
        case let .didReceiveUserInfo(userInfo, transfer):
            if refuse.contains(transfer.seq) { return .notNow }
            uncommitted.append((userInfo, transfer))
            return .accepted
        case .didCommitReceivedTransfers:
            received += uncommitted
            uncommitted.removeAll()
            commits += 1
        case .didRollBackReceivedTransfers:
            uncommitted.removeAll()
            rollbacks += 1
        case let .didFinish(transfer, _): finished.append(transfer)
        case let .didReceiveApplicationContext(context): contexts.append(context)
        case let .didReceiveMessage(message, reply?):
            messages.append(message)
            if let answer = answer?(message) { reply(answer) }
        case let .didReceiveMessage(message, nil): messagesWithoutReply.append(message)
        case .didReceiveMessageData: break
        case let .didReceiveFile(file):
            files.append((file, (try? Filesystem.readFile(file.path)) ?? []))
            return fileOutcome
        case let .fileTransferDidProgress(seq, completed, total): fileProgress.append((seq, completed, total))
        case .reachabilityDidChange: reachabilityChanges += 1
        case .watchStateDidChange: watchStateChanges += 1
        }
        return nil
    }

    var receivedNumbers: [Int64] { received.compactMap { $0.0["n"]?.int64Value } }
}

/// A phone and a watch session, each with its own store in a temporary directory, on one loop with a
/// manual clock, paired with each other.
final class PairHarness {
    let directory = makeTemporaryDirectory("sess")
    let loop = EventLoop(clock: ManualClock())

    /// Moves the loop's manual clock on (the timers come due at the next `drive`).
    func advanceClock(byMilliseconds milliseconds: UInt64) { (loop.clock as! ManualClock).advance(byMilliseconds: milliseconds) }
    let phoneDB: Database
    let watchDB: Database
    let phone: Session
    let watch: Session
    let phoneDelegate = RecordingDelegate()
    let watchDelegate = RecordingDelegate()
    var link: MemoryLink?

    init(
        configuration: SessionConfiguration = SessionConfiguration(), pair: Bool = true, watchTransport: LinkTransport? = nil,
        configure: (DeviceRole, inout SessionConfiguration) -> Void = { _, _ in }
    ) throws {
        phoneDB = try Database(path: directory + "/phone.sqlite")
        watchDB = try Database(path: directory + "/watch.sqlite")
        try Migrator.migrate(phoneDB, SessionStore.migrations)
        try Migrator.migrate(watchDB, SessionStore.migrations)
        if pair {
            let pairing = Pairing(
                pairingID: Identifier.uuid(),
                phoneDeviceID: try SessionStore.deviceID(phoneDB, role: .phone),
                watchDeviceID: try SessionStore.deviceID(watchDB, role: .watch),
                phoneLinkSocket: directory + "/link.sock", pairedAt: 0)
            try SessionStore.setPairing(phoneDB, pairing)
            try SessionStore.setPairing(watchDB, pairing)
            // As `runway pair` does: the same new secret in both homes.
            let secret = PairingSecret.generate()
            try PairingSecrets(home: directory + "/phone").write(secret, pairingID: pairing.pairingID)
            try PairingSecrets(home: directory + "/watch").write(secret, pairingID: pairing.pairingID)
        }
        var phoneConfiguration = configuration
        var watchConfiguration = configuration
        phoneConfiguration.pairingSecrets = PairingSecrets(home: directory + "/phone")
        watchConfiguration.pairingSecrets = PairingSecrets(home: directory + "/watch")
        configure(.phone, &phoneConfiguration)
        configure(.watch, &watchConfiguration)
        phone = Session(role: .phone, database: phoneDB, loop: loop, transport: nil, configuration: phoneConfiguration, logger: .silent)
        watch = Session(role: .watch, database: watchDB, loop: loop, transport: watchTransport, configuration: watchConfiguration, logger: .silent)
        phone.handler = phoneDelegate
        watch.handler = watchDelegate
    }

    deinit { removeDirectory(directory) }

    func activateBoth() throws {
        try phone.activate()
        try watch.activate()
        try drive()
    }

    @discardableResult
    func connect() throws -> MemoryLink? {
        link = try MemoryLink.connect(watch, phone, loop: loop)
        try drive()
        return link
    }

    /// Runs loop iterations until nothing is left to do right now.
    func drive(_ iterations: Int = 200) throws {
        for _ in 0..<iterations { try loop.runOnce(maximumWaitMilliseconds: 0) }
    }

    func numbered(_ range: Range<Int>) -> [UserInfo] {
        range.map { ["n": .integer(Int64($0)), "pad": .string(String(repeating: "x", count: 100))] }
    }
}

/// Expects a message's outcome to be a failure with `code`; anything else is recorded as `otherwise`.
func expectFailure<Success>(
    _ outcome: Result<Success, WCError>?, _ code: WCErrorCode, otherwise: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    if case let .failure(error)? = outcome {
        #expect(error.code == code, sourceLocation: sourceLocation)
    } else {
        Issue.record(Comment(rawValue: otherwise), sourceLocation: sourceLocation)
    }
}
