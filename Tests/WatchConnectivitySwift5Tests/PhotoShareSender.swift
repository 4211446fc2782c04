// A phone-side sender as iOS apps write one, importing only UIKit and WatchConnectivity (UIKit brings
// Foundation on Apple's platforms, so Data, URL and DispatchQueue come with it). Compiled unchanged in
// Swift 5 and Swift 6 modes.

import UIKit
import WatchConnectivity

final class PhotoShareSender: NSObject, WCSessionDelegate, @unchecked Sendable {
    private let workQueue = DispatchQueue(label: "com.example.photoshare.send")
    private let lock = NSLock()
    private var _sentFiles: [URL] = []
    private var _failures: [String] = []

    var sentFiles: [URL] { lock.withLock { _sentFiles } }
    var failures: [String] { lock.withLock { _failures } }

    private func record(sent url: URL? = nil, failure: String? = nil) {
        lock.withLock {
            if let url = url { _sentFiles.append(url) }
            if let failure = failure { _failures.append(failure) }
        }
    }

    func activate() {
        guard WCSession.isSupported() else { return }
        WCSession.default.delegate = self
        WCSession.default.activate()
    }

    /// Writes the thumbnail to a temporary file and hands it to the session, off the main thread.
    func share(thumbnail: Data, named name: String) {
        workQueue.async {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(name).appendingPathExtension("jpg")
            do {
                try thumbnail.write(to: url, options: .atomic)
            } catch {
                self.record(failure: error.localizedDescription)
                return
            }
            self.record(sent: url)
            WCSession.default.transferFile(url, metadata: ["name": name, "bytes": thumbnail.count, "at": Date()])
        }
    }

    @MainActor var isInForeground: Bool { UIApplication.shared.applicationState == .active }

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        if let error = error { record(failure: error.localizedDescription) }
    }

    func session(_ session: WCSession, didFinish fileTransfer: WCSessionFileTransfer, error: Error?) {
        if let error = error { record(failure: "\(fileTransfer.file.fileURL.lastPathComponent): \(error.localizedDescription)") }
        try? FileManager.default.removeItem(at: fileTransfer.file.fileURL)
    }

    func sessionDidBecomeInactive(_ session: WCSession) {}
    func sessionDidDeactivate(_ session: WCSession) { session.activate() }
}
