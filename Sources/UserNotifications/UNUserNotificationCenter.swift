import Control
import OSServices
import AppHost
import Foundation

/// The app's notification centre, with Apple's names (`UNUserNotificationCenter`): it schedules local
/// notifications with the device's OS, which keeps them and delivers each at its fire date — on the
/// device clock (`runway clock`) — whether or not the app runs.
///
/// Changes made in one turn of the device's delegate queue (a reminder ladder: remove five, add four)
/// reach the OS together, in one transaction, at the end of that turn; their completion handlers run
/// then. Reads see every change made before them. Completion handlers run on the delegate queue —
/// at once when the call was made there.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    private static let shared = UNUserNotificationCenter()

    /// The app's notification centre.
    open class func current() -> UNUserNotificationCenter { shared }

    /// Told of each notification delivered while the app runs.
    open weak var delegate: (any UNUserNotificationCenterDelegate)? {
        didSet { observeIfNeeded() }
    }

    private struct Change {
        var remove: [String] = []
        var add: [(UserNotificationCenter.Request, ((any Error)?) -> Void)] = []
        var isEmpty: Bool { remove.isEmpty && add.isEmpty }
    }

    private var pending = Change()
    private var flushScheduled = false
    private var observing = false
    /// Where the requests go: the device's OS (`current()`), or one given (the app's unit tests).
    private let fixed: Backend?

    override init() {
        fixed = nil
        super.init()
    }

    /// A centre over `channel`, on the calling thread, each change sent at once: for unit tests of an
    /// app's scheduling without a device.
    init(channel: OSChannel) {
        fixed = Backend(channel: channel, sync: { $0() }, deferToEndOfTurn: { $0() }, isInForeground: { true })
        super.init()
    }

    /// The app's channel to its OS and the device's delegate queue.
    struct Backend {
        let channel: OSChannel
        /// Runs work on the device's thread and waits.
        let sync: (() -> Void) -> Void
        let deferToEndOfTurn: (@escaping () -> Void) -> Void
        /// Whether the app is in the foreground now (on the device's thread): `willPresent` is for it only.
        let isInForeground: () -> Bool

        func pendingRequests() throws -> [UserNotificationCenter.Request] {
            try channel.call(NotificationRequest.List()).pending.compactMap(UserNotificationCenter.Request.init)
        }

        func deliveredNotifications() throws -> [UserNotificationCenter.Delivered] {
            try channel.call(NotificationRequest.List()).delivered.compactMap(UserNotificationCenter.Delivered.init)
        }
    }

    private var backend: Backend? {
        if let fixed { return fixed }
        // Read on the device's thread: it sets the channel as it starts, after the app's first line may
        // have run (a delegate set first thing in `main`), and a `sync` waits for it to be up.
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment(), let channel = host.mailbox.sync({ host.osChannel }) else { return nil }
        return Backend(
            channel: channel, sync: { body in host.mailbox.sync { body() } },
            deferToEndOfTurn: { body in host.loop.deferToEndOfIteration(body) }, isInForeground: { host.isInForeground })
    }

    private func unavailable() -> UNError {
        UNError(code: .notificationsNotAllowed, message: "this process is not an app on a simulated device: no notification centre")
    }

    // MARK: - Authorization

    /// The simulated user allows notifications.
    open func requestAuthorization(options: UNAuthorizationOptions = [], completionHandler: @escaping (Bool, (any Error)?) -> Void) {
        completionHandler(backend != nil, backend == nil ? unavailable() : nil)
    }

    /// `requestAuthorization(options:completionHandler:)`, awaited: true, or the error of a process that
    /// is no app on a simulated device.
    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        guard backend != nil else { throw unavailable() }
        return true
    }

    /// The app's settings: authorized on a simulated device (`notDetermined` in a process that is none).
    open func getNotificationSettings(completionHandler: @escaping (UNNotificationSettings) -> Void) {
        completionHandler(UNNotificationSettings(authorizationStatus: backend != nil ? .authorized : .notDetermined))
    }

    open func notificationSettings() async -> UNNotificationSettings {
        UNNotificationSettings(authorizationStatus: backend != nil ? .authorized : .notDetermined)
    }

    // MARK: - Scheduling

    /// Schedules `request` (one with the same identifier is replaced). The trigger's date must lie after
    /// the device's now; repeating triggers are not simulated. Past the 64 pending per app, the earliest
    /// added is dropped (logged by the OS).
    open func add(_ request: UNNotificationRequest, withCompletionHandler completionHandler: (((any Error)?) -> Void)? = nil) {
        let done = completionHandler ?? { _ in }
        guard let backend else { return done(unavailable()) }
        let callback = done
        backend.sync {
            let now = backend.channel.deviceNow
            let fireAt: Date
            switch request.trigger {
            case let trigger as UNTimeIntervalNotificationTrigger where !trigger.repeats && trigger.timeInterval > 0:
                fireAt = Date(timeIntervalSince1970: now + trigger.timeInterval)
                trigger.fireDate = fireAt
            case let trigger as UNCalendarNotificationTrigger where !trigger.repeats:
                guard let date = trigger.nextTriggerDate() else {
                    return callback(UNError(code: .notificationInvalidNoDate, message: "the trigger's components name no full date"))
                }
                fireAt = date
            case nil:
                // No trigger: deliver now (a moment of device time from now).
                fireAt = Date(timeIntervalSince1970: now + 0.001)
            default:
                return callback(
                    UNError(
                        code: .notificationInvalidNoDate, message: "repeating triggers (and intervals of 0 s or less) are not simulated"))
            }
            let language = (request.content.userInfo["language"] as? String) ?? ""
            pending.add.append(
                (
                    UserNotificationCenter.Request(
                        id: request.identifier, fireAt: fireAt.timeIntervalSince1970, title: request.content.title,
                        body: request.content.body, language: language), callback
                ))
            scheduleFlush(backend)
        }
    }

    /// `add(_:withCompletionHandler:)`, awaited.
    open func add(_ request: UNNotificationRequest) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            add(request) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    open func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        guard let backend else { return }
        backend.sync {
            // A removal after an add of the same id in this turn wins, as it would one after the other.
            pending.add.removeAll { identifiers.contains($0.0.id) }
            pending.remove.append(contentsOf: identifiers)
            scheduleFlush(backend)
        }
    }

    open func removeAllPendingNotificationRequests() {
        guard let backend else { return }
        backend.sync {
            flush(backend)
            let ids = ((try? backend.pendingRequests()) ?? []).map(\.id)
            pending.remove.append(contentsOf: ids)
            scheduleFlush(backend)
        }
    }

    // MARK: - Reading

    /// The requests not yet delivered, by fire date.
    open func getPendingNotificationRequests(completionHandler: @escaping ([UNNotificationRequest]) -> Void) {
        guard let backend else { return completionHandler([]) }
        var requests: [UNNotificationRequest] = []
        backend.sync {
            flush(backend)
            requests = ((try? backend.pendingRequests()) ?? []).map(Self.request)
        }
        completionHandler(requests)
    }

    open func pendingNotificationRequests() async -> [UNNotificationRequest] {
        await withCheckedContinuation { continuation in getPendingNotificationRequests { continuation.resume(returning: $0) } }
    }

    /// The notifications delivered (the last 1,000), in delivery order.
    open func getDeliveredNotifications(completionHandler: @escaping ([UNNotification]) -> Void) {
        guard let backend else { return completionHandler([]) }
        var delivered: [UNNotification] = []
        backend.sync {
            flush(backend)
            delivered = ((try? backend.deliveredNotifications()) ?? []).map(Self.notification)
        }
        completionHandler(delivered)
    }

    open func deliveredNotifications() async -> [UNNotification] {
        await withCheckedContinuation { continuation in getDeliveredNotifications { continuation.resume(returning: $0) } }
    }

    open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        guard let backend else { return }
        backend.sync { _ = try? backend.channel.call(NotificationRequest.RemoveDelivered { $0.ids = identifiers }) }
    }

    open func removeAllDeliveredNotifications() {
        guard let backend else { return }
        backend.sync { _ = try? backend.channel.call(NotificationRequest.RemoveDelivered()) }
    }

    // MARK: - To the OS

    private func scheduleFlush(_ backend: Backend) {
        guard !flushScheduled else { return }
        flushScheduled = true
        backend.deferToEndOfTurn { [weak self] in self?.flush(backend) }
    }

    /// Sends what changed in this turn to the OS in one go, then runs the completion handlers.
    private func flush(_ backend: Backend) {
        flushScheduled = false
        guard !pending.isEmpty else { return }
        let change = pending
        pending = Change()
        var failure: (any Error)?
        do {
            _ = try backend.channel.call(
                NotificationRequest.Replace {
                    $0.remove = change.remove
                    $0.add = change.add.map(\.0)
                })
        } catch {
            failure = error
        }
        for (_, callback) in change.add { callback(failure) }
    }

    private func observeIfNeeded() {
        guard !observing, delegate != nil, let backend else { return }
        observing = true
        backend.sync {
            // Apple: willPresent is for a notification that arrives while the app is in the foreground.
            backend.channel.observe(NotificationDelivered.self) { [weak self] item in
                guard let self, backend.isInForeground(), let delegate = self.delegate, let delivered = UserNotificationCenter.Delivered(item) else {
                    return
                }
                delegate.userNotificationCenter(self, willPresent: Self.notification(delivered)) { _ in }
            }
            backend.channel.observe(NotificationResponseWaiting.self) { [weak self] _ in self?.takeResponses(backend) }
            // What the user opened before the delegate was set (the open that launched the app).
            takeResponses(backend)
        }
    }

    /// Hands the delegate each response the OS holds for the app (on the device's thread).
    private func takeResponses(_ backend: Backend) {
        guard let delegate, let held = try? backend.channel.call(NotificationRequest.TakeResponses()) else { return }
        for item in held.responses {
            guard let delivered = UserNotificationCenter.Delivered(item.notification) else { continue }
            let response = UNNotificationResponse(notification: Self.notification(delivered), actionIdentifier: item.actionIdentifier)
            delegate.userNotificationCenter(self, didReceive: response) {}
        }
    }

    // MARK: - From the OS's records

    static func request(_ held: UserNotificationCenter.Request) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.title = held.title
        content.body = held.body
        if !held.language.isEmpty { content.userInfo = ["language": held.language] }
        return UNNotificationRequest(
            identifier: held.id, content: content, trigger: UNCalendarNotificationTrigger.at(Date(timeIntervalSince1970: held.fireAt)))
    }

    static func notification(_ held: UserNotificationCenter.Delivered) -> UNNotification {
        var request = UserNotificationCenter.Request(id: held.id, fireAt: held.fireAt, title: held.title, body: held.body, language: held.language)
        request.addedAt = 0
        return UNNotification(date: Date(timeIntervalSince1970: held.deliveredAt), request: Self.request(request))
    }
}
