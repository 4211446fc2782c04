import Synchronization

/// Where an app's `os.Logger` messages go besides its stderr: the device's delegate trace, so that
/// `runway … events` shows them among the session's calls. The device installs the sink; without one
/// (a process that is no device, the tests of `os`) a message goes to stderr only.
package enum AppLogTap {
    /// One message, as the app's `Logger` wrote it.
    package struct Message: Sendable {
        /// `debug`, `info`, `default`, `error` or `fault`.
        package let type: String
        package let subsystem: String
        package let category: String
        package let text: String

        package init(type: String, subsystem: String, category: String, text: String) {
            self.type = type
            self.subsystem = subsystem
            self.category = category
            self.text = text
        }
    }

    private static let sink = Mutex<(@Sendable (Message) -> Void)?>(nil)

    /// The device's sink (called on the logging thread: it hands the message to its own).
    package static func install(_ body: (@Sendable (Message) -> Void)?) { sink.withLock { $0 = body } }

    package static func send(_ message: Message) { sink.withLock { $0 }?(message) }
}
