// Logging written as libraries from before `Logger` still write it: an `OSLog` of their own and `os_log`
// with a format string, behind `#if canImport(os)` so the file builds where there is no `os`. Here the
// branch is taken (`os` and its `log` submodule exist), and each line lands in the device's log beside
// `Logger`'s. Called by IntakeSessionStore; compiled unchanged in Swift 5 and 6 modes with it.

import Foundation

#if canImport(os)
    import os.log
#endif

enum ReceiptLog {
    #if canImport(os)
        static let receipts = OSLog(subsystem: "com.example.intake", category: "receipts")
    #endif

    static func received(_ id: String, total: Int) {
        #if canImport(os)
            os_log("received %{public}@ (%d this launch)", log: receipts, type: .info, id, total)
        #else
            print("received \(id) (\(total) this launch)")
        #endif
    }

    static func activated(reachable: Bool) {
        #if canImport(os)
            os_log(.debug, log: receipts, "activated, reachable: \(reachable)")
            os_log("%{public}s session ready", type: .default, "intake")
        #endif
    }

    static func failed(_ error: Error) {
        #if canImport(os)
            os_log(.error, log: receipts, "could not save: %{public}@", error.localizedDescription)
        #endif
    }
}
