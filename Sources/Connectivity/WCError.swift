/// WatchConnectivity's error codes, with Apple's numbers and names: the engine's `WCError.Code`. The app's
/// is `WatchConnectivity.WCError.Code`, declared in the product with the same cases and numbers (an app
/// names its cases, and under `MemberImportVisibility` a member is visible only from a module the file
/// imports; this one is no product). WatchConnectivity maps one to the other by number (its tests check
/// that every code maps).
package enum WCErrorCode: Int, Sendable, Hashable, CaseIterable {
    case genericError = 7001
    case sessionNotSupported = 7002
    case sessionMissingDelegate = 7003
    case sessionNotActivated = 7004
    case deviceNotPaired = 7005
    case watchAppNotInstalled = 7006
    case notReachable = 7007
    case invalidParameter = 7008
    case payloadTooLarge = 7009
    case payloadUnsupportedTypes = 7010
    case messageReplyFailed = 7011
    case messageReplyTimedOut = 7012
    case fileAccessDenied = 7013
    case deliveryFailed = 7014
    case insufficientSpace = 7015
    case sessionInactive = 7016
    case transferTimedOut = 7017
    case companionAppNotInstalled = 7018
    case watchOnlyApp = 7019
}

extension WCErrorCode {
    /// The case name, as Apple spells it (`payloadTooLarge`).
    package var name: String { String(describing: self) }
}

/// The engine's error: one of Apple's codes, and what went wrong in words.
package struct WCError: Error, Equatable, CustomStringConvertible, Sendable {
    package typealias Code = WCErrorCode

    package let code: Code
    package let message: String
    /// The refusal came from an iPhone not unlocked since it restarted (`runway phone reboot`): the
    /// watch's `iOSDeviceNeedsUnlockAfterRebootForReachability` (carried in the `error` frame).
    package var lockedAfterReboot = false

    package init(_ code: Code, _ message: String = "", lockedAfterReboot: Bool = false) {
        self.code = code
        self.message = message
        self.lockedAfterReboot = lockedAfterReboot
    }

    package var name: String { code.name }

    /// `7009 payloadTooLarge: userInfo is 70000 bytes, more than 65536`
    package var description: String {
        message.isEmpty ? "\(code.rawValue) \(code.name)" : "\(code.rawValue) \(code.name): \(message)"
    }
}
