import Connectivity
import Control
import Foundation

/// The error domain of WatchConnectivity's errors.
public let WCErrorDomain = "WCErrorDomain"

/// WatchConnectivity's error, as Apple's framework gives it to Swift: a `code` from `WCError.Code`, the
/// domain `WCErrorDomain`, and a description in `localizedDescription`.
public struct WCError: Error, Hashable, CustomNSError, CustomStringConvertible, @unchecked Sendable {
    /// Apple's codes, with Apple's numbers. Declared here, in the module apps import, so that
    /// `switch error.code { case .notReachable: … }` compiles under `MemberImportVisibility`; the engine's
    /// own codes (`Connectivity.WCErrorCode`) are the same numbers, mapped at the boundary.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
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

    public let code: Code
    /// `NSLocalizedDescriptionKey` carries what went wrong, in words.
    public let userInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// The error with a sentence saying what went wrong (`localizedDescription`).
    public init(_ code: Code, description: String) {
        self.init(code, userInfo: description.isEmpty ? [:] : [NSLocalizedDescriptionKey: description])
    }

    // MARK: - As Apple's bridged errors

    public static var errorDomain: String { WCErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }
    public var localizedDescription: String {
        (userInfo[NSLocalizedDescriptionKey] as? String) ?? "WatchConnectivity error \(code.rawValue) (\(code))"
    }
    public var description: String { "\(code.rawValue) \(code): \(localizedDescription)" }

    public static func == (lhs: WCError, rhs: WCError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var genericError: Code { .genericError }
    public static var sessionNotSupported: Code { .sessionNotSupported }
    public static var sessionMissingDelegate: Code { .sessionMissingDelegate }
    public static var sessionNotActivated: Code { .sessionNotActivated }
    public static var deviceNotPaired: Code { .deviceNotPaired }
    public static var watchAppNotInstalled: Code { .watchAppNotInstalled }
    public static var notReachable: Code { .notReachable }
    public static var invalidParameter: Code { .invalidParameter }
    public static var payloadTooLarge: Code { .payloadTooLarge }
    public static var payloadUnsupportedTypes: Code { .payloadUnsupportedTypes }
    public static var messageReplyFailed: Code { .messageReplyFailed }
    public static var messageReplyTimedOut: Code { .messageReplyTimedOut }
    public static var fileAccessDenied: Code { .fileAccessDenied }
    public static var deliveryFailed: Code { .deliveryFailed }
    public static var insufficientSpace: Code { .insufficientSpace }
    public static var sessionInactive: Code { .sessionInactive }
    public static var transferTimedOut: Code { .transferTimedOut }
    public static var companionAppNotInstalled: Code { .companionAppNotInstalled }
    public static var watchOnlyApp: Code { .watchOnlyApp }
}

/// The session's activation states, with Apple's raw values.
public enum WCSessionActivationState: Int, Sendable, Hashable {
    case notActivated = 0
    case inactive = 1
    case activated = 2
}

extension WCError: WatchConnectivityCoded {
    public var watchConnectivityCode: Int { code.rawValue }
    public var watchConnectivityMessage: String { localizedDescription }
}
