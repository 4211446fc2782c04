import Control
import JSONText
import Posix
import Storage

/// Fault injection for the tests of storage faults: a store capped at some number of pages fails its
/// commits with `SQLITE_FULL` exactly as on a full disk. Set at start-up (`--max-store-pages N`) or at
/// run time with the hidden control command `store-limit` (`{"pages": N}`, 0 lifts the cap), so a test
/// can make space "return" without restarting the daemon.
///
/// Fault-injection commands are no hidden knob of a daemon in use: they are refused unless the daemon
/// was started with `--enable-test-commands` (which it logs at start-up).
protocol StoreLimiting: AnyObject {
    var database: Database! { get }
    var logger: Logger { get }
    var runtime: DaemonRuntime { get }
}

extension StoreLimiting {
    func setStoreLimit(_ pages: Int) throws {
        // SQLite's own ceiling stands for "no limit".
        try database.setMaximumPageCount(pages == 0 ? 1_073_741_823 : pages)
        logger.warning(
            "fault.store-limit",
            [
                "pages": pages == 0 ? "unlimited" : String(pages),
                "current": (try? database.scalarInt("PRAGMA page_count")) ?? -1,
            ])
    }

    func storeLimitCommand(_ request: ControlRequest) throws -> JSONValue {
        let pages = request[ControlCommands.StoreLimit.pages]
        try setStoreLimit(pages)
        return .object(["pages": .integer(Int64(pages))])
    }
}

extension PhoneDaemon: StoreLimiting {}
extension WatchAgent: StoreLimiting {}
