import Foundation
import JSONText

/// RunWay 1.3's lost-flight scenario, through the real binaries: runs are recorded on the watch while
/// the phone is down; the phone is launched with no UI (iOS waking the app in the background), takes
/// every transfer until the watch has none outstanding, is SIGKILLed (iOS reclaiming it) and launched
/// again, still with no UI. The same scenario for either save path: the integration test and the demo
/// run it side by side.
package enum ColdLaunchScenario {
    package struct Outcome: Sendable {
        package let savePath: String
        package let report: InvariantReport
        /// What the phone said just before the kill.
        package let storedBeforeKill: Int
        package let heldInMemoryBeforeKill: Int
        /// How often a UI client attached, from the phone's log (the premise is: never).
        package let uiAttachments: Int

        /// `ui-drain: 500 recorded, 0 stored, 500 lost, 0 duplicated`
        package var line: String {
            "\(report.recorded) recorded, \(report.stored) stored, \(report.lost.count) lost, \(report.duplicated.count) duplicated"
        }
    }

    /// Runs the scenario in fresh homes, which it removes afterwards.
    package static func run(savePath: String, count: Int, tag: String = "cold") throws -> Outcome {
        return try withRunningPair(tag: tag, phone: nil) { pair in
            pair.phoneArguments = ["--save-path", savePath]
            try pair.record(count)

            try pair.startPhone()
            try pair.waitUntilDrained()
            let before = try pair.status("phone")
            pair.killPhone(SIGKILL)

            try pair.startPhone()
            // Relaunched, the phone has nothing more coming: the watch let go of every transfer when it was
            // acknowledged. Wait until they are linked again, so that a resend would have had its chance.
            try pair.waitUntil("the watch is linked to the relaunched phone") {
                try pair.status("phone")["linked"] == .bool(true)
            }
            let report = try pair.check()
            pair.stopAll()
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            return Outcome(
                savePath: savePath, report: report,
                storedBeforeKill: before["flights"]?.intValue ?? -1,
                heldInMemoryBeforeKill: before["pendingWatchDataQueue"]?.intValue ?? -1,
                uiAttachments: log.components(separatedBy: "event=ui.attached").count - 1)
        }
    }
}
