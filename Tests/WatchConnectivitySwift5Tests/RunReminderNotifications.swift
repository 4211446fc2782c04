// A phone app's notification code, written as apps write it: the centre's delegate in its async form,
// a reminder with the default sound once the user allowed it, the response routed by its action, and the
// colour a pace zone is drawn in. Compiled unchanged in Swift 5 and 6 modes with MemberImportVisibility.

import Foundation
import UIKit
import UserNotifications

enum PaceZone: Int, CaseIterable {
    case easy, steady, tempo, threshold, sprint

    var color: UIColor {
        switch self {
        case .easy: return .systemGreen
        case .steady: return .systemTeal
        case .tempo: return .systemYellow
        case .threshold: return .systemOrange
        case .sprint: return UIColor(red: 0.9, green: 0.1, blue: 0.2, alpha: 1)
        }
    }

    /// The zone's colour, faded for the chart's background band.
    var bandColor: UIColor { color.withAlphaComponent(0.25) }
}

final class RunReminderNotifications: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var opened: [String] = []
    private var dismissed: [String] = []

    var openedIdentifiers: [String] { lock.withLock { opened } }

    func scheduleReminder(inDays days: Int, center: UNUserNotificationCenter = .current()) {
        center.getNotificationSettings { settings in
            guard settings.authorizationStatus == .authorized || settings.authorizationStatus == .provisional else { return }
            let content = UNMutableNotificationContent()
            content.title = "Time for a run"
            content.body = "It has been \(days) days."
            content.sound = .default
            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: TimeInterval(days * 86_400), repeats: false)
            center.add(UNNotificationRequest(identifier: "reminder-\(days)d", content: content, trigger: trigger))
        }
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions
    {
        notification.request.content.sound == nil ? [.banner, .list] : [.banner, .list, .sound]
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        let identifier = response.notification.request.identifier
        switch response.actionIdentifier {
        case UNNotificationDefaultActionIdentifier:
            lock.withLock { opened.append(identifier) }
            await MainActor.run { showLogbook(scrolledTo: identifier) }
        case UNNotificationDismissActionIdentifier:
            lock.withLock { dismissed.append(identifier) }
        default:
            break
        }
    }

    @MainActor private func showLogbook(scrolledTo identifier: String) {
        // On screen by now: the system brought the app forward to show the notification's content.
        _ = UIApplication.shared.applicationState == .active
    }
}
