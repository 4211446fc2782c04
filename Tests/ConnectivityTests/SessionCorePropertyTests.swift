@testable import Connectivity
import Posix
import RunWayApp
import Testing
import PropertyLists

/// The session core under random sequences of events, with a shell that does what `Session.apply` does
/// (a closed link calls back at once, `then` now, `later` after): whatever happens, every message the
/// core accepted is settled exactly once, nothing else is settled, and the delegate hears of
/// reachability exactly when `isReachable` changes. A watch switch is left out: there the app hears
/// `sessionDidBecomeInactive` instead (`SessionCoreTests.aSwitchedWatchMakesTheSessionInactiveThenNotActivated`).
@Suite struct SessionCorePropertyTests {
    /// What the simulated shell saw.
    struct Shell {
        var core: SessionCore
        var accepted: Set<Int64> = []
        var settled: [Int64: Int] = [:]
        var settledUnknown: [Int64] = []
        var refusedWithAnID = 0
        var reachabilityTells = 0
        var later: [SessionEvent] = []

        mutating func process(_ event: SessionEvent) {
            for action in core.handle(event) {
                switch action {
                case let .then(next): process(next)
                case let .later(next): later.append(next)
                case .closeLink: if core.isLinked { process(.linkClosed(reason: "closed")) }
                case let .messageAccepted(id, _, _, _):
                    if accepted.contains(id) { refusedWithAnID += 1 }  // an id given twice
                    accepted.insert(id)
                case let .completeMessage(id, _):
                    if accepted.contains(id) { settled[id, default: 0] += 1 } else { settledUnknown.append(id) }
                case .tell(.reachabilityDidChange): reachabilityTells += 1
                default: break
                }
            }
        }

        mutating func runLater() {
            let due = later
            later = []
            for event in due { process(event) }
        }
    }

    static func randomEvent(_ core: SessionCore, _ random: inout SeededGenerator) -> [SessionEvent] {
        let peerRole: DeviceRole = core.role.counterpart
        func bool() -> Bool { Bool.random(using: &random) }
        let someID = Int64.random(in: 1...max(1, core.messages.nextID), using: &random)
        switch Int.random(in: 0..<13, using: &random) {
        case 0 where !core.isLinked && core.activationState == .activated:  // a handshake needs an activated session
            var peer = SessionCoreTests.handshake(from: peerRole, installed: bool(), active: bool())
            peer.pendingMessages = 0
            return [.linkOpening(replacing: false), .linkUp(peer), .linkEstablished(receiveCursors: Lanes(repeating: 0))]
        case 1: return [.linkClosed(reason: "out of range")]
        case 2: return [.counterpartAppStateReported(installed: bool() ? bool() : nil, active: bool() ? bool() : nil)]
        case 3: return [.localAppStateChanged(AppPresence(installed: bool() || bool(), active: bool()))]
        case 4, 5:
            return [.messageSendRequested(.dictionary([:]), replyExpected: bool(), timeoutMilliseconds: 10, transportCanWake: bool()) { _ in }]
        case 6:
            let type: FrameType = [.messageReply, .messageDelivered, .messageError].randomElement(using: &random)!
            let body = type == .messageError ? ErrorFrame.encode(WCError(.messageReplyFailed, "x")) : PropertyListCodec.encode([:])
            return [.messageFrameReceived(type, id: someID, body: body)]
        case 7: return [.messageTimedOut(id: someID, error: WCError(.messageReplyTimedOut, "t"))]
        case 8: return [.linkAttemptFailed(WCError(.notReachable, "nobody listens"))]
        // The watch: the phone's system declines a hello (in range, its app not running), or nobody listens.
        case 11: return [.counterpartStateOutsideLink(installed: bool() ? true : nil, active: false)]
        case 12: return [.counterpartOutOfRange]
        case 9 where core.activationState == .activated:
            return [.deactivationRequested]
        case 10 where core.activationState == .notActivated:
            return [
                .activationRequested,
                .deviceStateLoaded(
                    LoadedDeviceState(
                        deviceID: "\(core.role)-1", pairing: SessionCoreTests.pairing, local: core.local, counterpart: core.counterpart,
                        counterpartVersion: nil)),
                .activationSucceeded,
            ]
        default: return [.messagesAwaitingLinkMaySend]
        }
    }

    @Test(arguments: [DeviceRole.watch, .phone])
    func everyMessageIsSettledOnceAndReachabilityIsToldExactlyWhenItChanges(role: DeviceRole) {
        for seed in UInt64(1)...300 {
            var random = SeededGenerator(seed: seed)
            var shell = Shell(core: SessionCoreTests.activated(role))
            for step in 0..<60 {
                let before = shell.core.isReachable
                let tellsBefore = shell.reachabilityTells
                for event in Self.randomEvent(shell.core, &random) { shell.process(event) }
                shell.runLater()
                let core = shell.core
                let told = shell.reachabilityTells - tellsBefore
                #expect(told == (before != core.isReachable ? 1 : 0), "seed \(seed) step \(step): told \(told) times, \(before) → \(core.isReachable)")
                // Reachable needs a link, or — the watch — the phone in range without one (its app not running).
                #expect(
                    !core.isReachable || ((core.isLinked || (role == .watch && core.counterpartInRange)) && core.activationState == .activated),
                    "seed \(seed) step \(step)")
                #expect(Set(core.messages.awaitingLink.keys).isSubset(of: core.messages.pending), "seed \(seed) step \(step)")
                if told > 1 || !shell.settledUnknown.isEmpty { break }
            }
            shell.process(.messagesFailed(WCError(.notReachable, "the end")))
            #expect(shell.settledUnknown.isEmpty, "seed \(seed): settled ids never accepted: \(shell.settledUnknown)")
            #expect(shell.refusedWithAnID == 0, "seed \(seed): an id given twice")
            let notOnce = shell.accepted.filter { shell.settled[$0] != 1 }
            #expect(notOnce.isEmpty, "seed \(seed): messages not settled exactly once: \(notOnce.sorted())")
            #expect(shell.core.messages.pending.isEmpty)
        }
    }
}
