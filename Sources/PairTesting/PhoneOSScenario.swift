import Foundation
import JSONText

/// RunWay 1.3's bug with no hand on the kill switch: runs recorded while the phone is down, then the
/// phone is run by `phone-os` with a short background budget. Each background launch takes a batch and
/// is reclaimed before any UI appears; in the end the user opens the app. The demo's second side by side.
package enum PhoneOSScenario {
    package struct Outcome {
        package let report: InvariantReport
        package let launches: Int
        package let reclaims: Int
        package var line: String {
            "\(report.recorded) recorded, \(report.stored) stored, \(report.lost.count) lost, \(report.duplicated.count) duplicated"
                + " (\(launches) background launches, \(reclaims) reclaimed)"
        }
    }

    package static func run(savePath: String, count: Int, budgetMilliseconds: Int = 300, tag: String) throws -> Outcome {
        return try withRunningPair(tag: tag, phone: nil) { pair in
            try pair.record(count)
            try pair.startPhoneOS(["--save-path", savePath, "--background-budget-ms", String(budgetMilliseconds)])
            try pair.waitUntilDrained(timeout: 300)
            try pair.waitUntil("the last background launch is over") {
                try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue == "not running"
            }
            let status = try pair.phoneOSCall(["os", "status"])
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the app answers") { (try? pair.status("phone")) != nil }
            return Outcome(
                report: try pair.check(), launches: status["launchCount"]?.intValue ?? 0,
                reclaims: status["reclaims"]?.intValue ?? 0)
        }
    }
}
