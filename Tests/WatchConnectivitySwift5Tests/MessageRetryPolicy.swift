// How a phone app decides what to do when a live message fails, written as apps write it: the error
// bridged to `WCError` and its `code` switched over by case. Compiled unchanged in Swift 5 and 6 modes
// with MemberImportVisibility on: the cases resolve with only `import WatchConnectivity`.

import Foundation
import WatchConnectivity

enum MessageFailureAction: Equatable {
    case queueAsUserInfo
    case retryLater(seconds: TimeInterval)
    case splitPayload
    case giveUp(reason: String)
}

struct MessageRetryPolicy {
    var attempts = 0

    mutating func action(for error: Error) -> MessageFailureAction {
        attempts += 1
        guard let wcError = error as? WCError else {
            return .giveUp(reason: (error as NSError).localizedDescription)
        }
        switch wcError.code {
        case .notReachable, .sessionInactive:
            // The watch app is not in front: the transfer queue delivers when it can.
            return .queueAsUserInfo
        case .messageReplyTimedOut, .messageReplyFailed, .deliveryFailed:
            return attempts < 3 ? .retryLater(seconds: pow(2, Double(attempts))) : .queueAsUserInfo
        case .payloadTooLarge:
            return .splitPayload
        case .sessionNotActivated, .sessionMissingDelegate, .deviceNotPaired, .watchAppNotInstalled:
            return .giveUp(reason: "no session: \(wcError.code.rawValue)")
        default:
            return .giveUp(reason: wcError.localizedDescription)
        }
    }
}
