@_exported import Foundation

/// An error from a HealthKit call, with HealthKit's codes (`HKError.Code`) and domain. What this
/// simulator does not simulate fails with one of them, and says so in its description (docs/your-app.md).
public struct HKError: Error, CustomNSError, CustomStringConvertible, Sendable {
    /// HealthKit's codes, with Apple's raw values.
    public enum Code: Int, Sendable {
        case noError = 0
        case errorHealthDataUnavailable = 1
        case errorHealthDataRestricted = 2
        case errorInvalidArgument = 3
        case errorAuthorizationDenied = 4
        case errorAuthorizationNotDetermined = 5
        case errorDatabaseInaccessible = 6
        case errorUserCanceled = 7
        case errorAnotherWorkoutSessionStarted = 8
        case errorUserExitedWorkoutSession = 9
        case errorRequiredAuthorizationDenied = 10
        case errorNoData = 11
        case errorWorkoutActivityNotAllowed = 12
        case errorDataSizeExceeded = 13
        case errorBackgroundWorkoutSessionNotAllowed = 14
        case errorNotPermissibleForGuestUserMode = 15
    }

    public let code: Code
    /// What went wrong, in one line.
    public let message: String

    public init(_ code: Code, message: String = "") {
        self.code = code
        self.message = message
    }

    public static var errorDomain: String { "com.apple.healthkit" }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var description: String { "HKError \(code.rawValue) (\(code)): \(message)" }

    public static let errorHealthDataUnavailable = Code.errorHealthDataUnavailable
    public static let errorInvalidArgument = Code.errorInvalidArgument
    public static let errorAuthorizationDenied = Code.errorAuthorizationDenied
    public static let errorDatabaseInaccessible = Code.errorDatabaseInaccessible
    public static let errorNoData = Code.errorNoData
    public static let errorWorkoutActivityNotAllowed = Code.errorWorkoutActivityNotAllowed
    public static let errorAnotherWorkoutSessionStarted = Code.errorAnotherWorkoutSessionStarted

    /// A feature HealthKit has and this simulator does not (yet): `errorHealthDataUnavailable`.
    static func notSimulated(_ what: String) -> HKError {
        HKError(.errorHealthDataUnavailable, message: "\(what) is not simulated (docs/your-app.md)")
    }
}
