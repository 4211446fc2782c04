import AppHost
import Connectivity
import Posix

// MARK: - The OS's notify socket: what the app says besides its exit

extension DeviceOperatingSystem {
    /// `HOME/os-notify.sock`, the app's `NOTIFY_SOCKET`: `READY=1`, `STATUS=`, its first delivery
    /// (`X_DELIVERED=1`), a workout running (`X_WORKOUT=`), each message received (`X_MESSAGE=1`), WatchKit's tasks (`X_TASK_HANDED=1`,
    /// `X_TASK_COMPLETED=1`) and what the device handles itself (`appNotified`: watch-os's refreshes,
    /// reloads, haptics). Only the running app's datagrams count.
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
                } else if line == "X_DELIVERED=1" {
                    supervision.delivered()
                    rearmSupervision()
                } else if line == AppLaunch.messageNotice {
                    // A message handed to a background app grants it its budget again.
                    supervision.messageReceived(at: loop.nowNanoseconds)
                    rearmSupervision()
                    continue
                } else if line == AppLaunch.watchSwitchOptOutNotice {
                    // A switch happened and the app implements neither switching method: it opted out,
                    // and iOS terminates it in the background.
                    switchOptedOut = true
                    logger.notice("os.watch-switch-opt-out", ["pid": childPID, "state": state.rawValue])
                    terminateIfOptedOutOfSwitching()
                    continue
                } else if line == AppLaunch.idleNotice {
                    // Its device has been quiet: suspended if its background work is done.
                    appIdle()
                    continue
                } else if line == AppLaunch.taskHandedNotice {
                    backgroundTasksHanded += 1
                    tasksOpen += 1
                } else if line == AppLaunch.taskCompletedNotice {
                    backgroundTasksCompleted += 1
                    tasksOpen = max(0, tasksOpen - 1)
                    if tasksOpen == 0 { tasksCompleted() }
                } else if appNotified(line) {
                    // The device's own (watch-os: a refresh scheduled, a reload, a haptic).
                } else if line == "X_WORKOUT=1" || line == "X_WORKOUT=0" {
                    workoutRunning = line == "X_WORKOUT=1"
                    // A workout keeps a background app alive: no budget runs while it does.
                    if state == .background {
                        if workoutRunning { supervision.budgetStops(foreground: false) } else { supervision.toBackground(at: loop.nowNanoseconds) }
                        rearmSupervision()
                    }
                }
                logger.info("os.app-notified", ["state": String(line)])
            }
        }
    }
}
