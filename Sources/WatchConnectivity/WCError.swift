import Connectivity
import Control
import Foundation

/// The error domain of WatchConnectivity's errors.
public let WCErrorDomain = "WCErrorDomain"

/// WatchConnectivity's error, as Apple's framework gives it to Swift: a `code` from `WCError.Code`, the
/// domain `WCErrorDomain`, and a description in `localizedDescription`.
public struct WCError: Error, Hashable, CustomNSError, CustomStringConvertible, @unchecked Sendable {
    /// Apple's codes, with Apple's numbers (declared once, with the engine's: `Connectivity.WCErrorCode`).
    public typealias Code = WCErrorCode

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
