import AppHost
import Connectivity
import Control
import Posix

// MARK: - The OS's notify socket: what the app says besides its exit

extension DeviceOperatingSystem {
    /// `HOME/os-notify.sock`, the app's `NOTIFY_SOCKET`: `READY=1`, `STATUS=`, the link's descriptor
    /// (`FDSTORE=1`), and the app's notices (`AppNotice`: its first delivery, a workout running, each
    /// message received, WatchKit's tasks, an idle spell, …; `handle(_:)`), those only a watch has done
    /// by watch-os (refreshes, reloads, haptics). Only the running app's datagrams count.
    func openNotifySocket() throws {
        let fd = try NotifySocket.bind(try UnixSocketAddress(path: notifyPath))
        notifySocket = fd
        loop.register(fd.rawValue, interest: .readable) { [unowned self] _ in self.readNotifications() }
    }

    func readNotifications() {
        guard let notifySocket else { return }
        while let (datagram, descriptor) = NotifySocket.nextWithDescriptor(from: notifySocket) {
            let text = String(decoding: datagram, as: UTF8.self)
            let lines = text.split(separator: "\n")
            // From the app running now: a datagram its predecessor sent just before it was reclaimed
            // must not count for the next launch.
            let sender = lines.first { $0.hasPrefix("MAINPID=") }.flatMap { pid_t($0.dropFirst("MAINPID=".count)) }
            if let sender, sender != childPID {
                descriptor?.close()
                continue
            }
            // sd_notify's store: the app's link, kept while the app runs (watched while it is suspended).
            if let descriptor {
                if lines.contains("FDSTORE=1") && lines.contains("FDNAME=link") && sender != nil {
                    storeLink(descriptor)
                    logger.debug("os.link-stored", ["pid": childPID])
                } else {
                    descriptor.close()
                }
                continue
            }
            for line in lines {
                if line == "READY=1" {
                    readyReports += 1
                    supervision.ready(at: loop.nowNanoseconds)
                    if workoutRunning, state == .background { supervision.budgetStops(foreground: false) }
                    rearmSupervision()
                    answerOpenWaiters(nil)
                } else if line.hasPrefix("STATUS=") {
                    // The app's own words on why it stops (`DaemonCommandLine.writeError`): quoted in the
                    // failure the OS reports.
                    appStatusLine = String(line.dropFirst("STATUS=".count))
                } else if let notice = AppNotice(line: line), !handle(notice) {
                    continue
                }
                logger.info("os.app-notified", ["state": String(line)])
            }
        }
    }

    /// What the app told its OS, handled — every notice here, in one switch. True if it is logged as
    /// `os.app-notified` (a message, an idle spell and an opt-out are logged their own way, or not).
    func handle(_ notice: AppNotice) -> Bool {
        switch notice {
        case .delivered:
            supervision.delivered()
            rearmSupervision()
        case .message:
            // A message handed to a background app grants it its budget again.
            supervision.messageReceived(at: loop.nowNanoseconds)
            rearmSupervision()
            return false
        case .watchSwitchOptOut:
            // A switch happened and the app implements neither switching method: it opted out, and iOS
            // terminates it in the background.
            switchOptedOut = true
            logger.notice("os.watch-switch-opt-out", ["pid": childPID, "state": state.rawValue])
            terminateIfOptedOutOfSwitching()
            return false
        case .idle:
            // Its device has been quiet: suspended if its background work is done.
            appIdle()
            return false
        case .taskHanded:
            backgroundTasksHanded += 1
            tasksOpen += 1
        case .taskCompleted:
            backgroundTasksCompleted += 1
            tasksOpen = max(0, tasksOpen - 1)
            if tasksOpen == 0 { tasksCompleted() }
        case let .refreshScheduled(at):
            refreshScheduled(at: at)
        case let .complicationReload(kind):
            complicationReloaded(kind)
        case let .haptic(type):
            hapticPlayed(type)
        case let .workout(running):
            workoutRunning = running
            // A workout keeps a background app alive: no budget runs while it does.
            if state == .background {
                if workoutRunning { supervision.budgetStops(foreground: false) } else { supervision.toBackground(at: loop.nowNanoseconds) }
                rearmSupervision()
            }
        }
        return true
    }
}
