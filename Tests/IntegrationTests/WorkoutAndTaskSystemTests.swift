import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 50, row 7: the system around a workout and a background task, through the binaries with
/// `wrist-app` (a watch app written against WatchKit and HealthKit only).
@Suite(.serialized) struct WorkoutAndTaskSystemTests {
    static var wrist: String { Binaries.path("wrist-app") }

    static func lines(_ pair: SimulatedPair, _ name: String) -> [String] {
        let text = (try? String(contentsOfFile: pair.watchHome + "/apps/wrist-app/Documents/" + name, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// One workout session at a time, and its events. HealthKit's `errorAnotherWorkoutSessionStarted`:
    /// "Apple Watch only runs one workout session at a time. If the user begins a second workout session …
    /// the original session receives this error message and then ends. The second session then starts."
    /// `workoutSession(_:didFailWithError:)`: "HealthKit always calls this method before calling the
    /// `workoutSession(_:didChangeTo:from:date:)` method." `workoutSession(_:didGenerate:)`: "Tells the
    /// delegate that the session has generated a new event" — a pause, a resume. On the code before issue
    /// 50 both sessions ran side by side and no event was told.
    @Test func aSecondWorkoutSessionEndsTheFirstAndPausesAndResumesAreEvents() throws {
        try withRunningPair(tag: "two-workouts", watch: ["--app", Self.wrist, "--app-arg=--two-workouts"]) { pair in
            try pair.waitUntil("the second session ended") { Self.lines(pair, "workouts.log").contains("B state 3") }
            #expect(
                Self.lines(pair, "workouts.log") == [
                    "A state 2", "A failed 8", "A state 3", "B state 2", "B state 4", "B event 1", "B state 2", "B event 2", "B state 3",
                ], "\(Self.lines(pair, "workouts.log"))")
        }
    }

    /// `WKRefreshBackgroundTask.expirationHandler`: "A block that the system calls when the available
    /// runtime for a background task is about to expire … clean up … and prepare for the system to suspend
    /// your app." The app keeps its task open (it never sees its content as complete); at its budget's end
    /// watch-os runs the handler first, the app completes the task there, and only then is the launch ended
    /// — the task completed, not expired. On the code before issue 50 the app was SIGKILLed unwarned and its
    /// task counted expired.
    @Test func anExpiringTaskHearsItsHandlerBeforeTheAppIsEnded() throws {
        try withRunningPair(tag: "task-expiry", watch: nil) { pair in
            try pair.startWatchOS([
                "--app", Self.wrist, "--app-arg=--never-complete", "--app-arg=--complete-on-expiry", "--background-budget-ms", "800",
            ])
            try pair.waitUntil("the launch for the phone's content is over") {
                let status = try pair.watchOSCall(["os", "status"])
                return status["reclaims"]?.intValue ?? 0 >= 1 && status["appState"]?.stringValue != "background"
            }
            #expect(Self.lines(pair, "expiry.log").first == "expiring", "the handler ran: \(Self.lines(pair, "expiry.log"))")
            let status = try pair.watchOSCall(["os", "status"])
            #expect(status["backgroundTasksExpired"]?.intValue == 0, "completed in its handler, not expired: \(status.text)")
            #expect(status["backgroundTasksCompleted"]?.intValue ?? 0 >= 1)
            let log = (try? String(contentsOfFile: pair.watchLog, encoding: .utf8)) ?? ""
            let warned = log.range(of: "event=os.tasks-expiring")
            let ended = log.range(of: "event=os.reclaimed")
            #expect(warned != nil && ended != nil && warned!.lowerBound < ended!.lowerBound, "warned, then reclaimed")
        }
    }
}
