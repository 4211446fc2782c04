import Control
import JSONText
import Posix
import Storage

/// Fault injection for the tests of storage faults: a store capped at some number of pages fails its
/// commits with `SQLITE_FULL` exactly as on a full disk. Set at start-up (`--max-store-pages N`) or at
/// run time with the hidden control command `store-limit` (`{"pages": N}`, 0 lifts the cap), so a test
/// can make space "return" without restarting the daemon. The cap applies to every store the device's
/// process writes: the WatchConnectivity service's and the app's (`DeviceHost.faultableStores`).
///
/// Fault-injection commands are no hidden knob of a daemon in use: they are refused unless the daemon
/// was started with `--enable-test-commands` (which it logs at start-up).
enum StoreLimit {
    static func apply(_ pages: Int, to databases: [Database], logger: Logger) throws {
        for database in databases {
            // SQLite's own ceiling stands for "no limit".
            try database.setMaximumPageCount(pages == 0 ? 1_073_741_823 : pages)
            logger.warning(
                "fault.store-limit",
                [
                    "store": database.path, "pages": pages == 0 ? "unlimited" : String(pages),
                    "current": (try? database.scalarInt("PRAGMA page_count")) ?? -1,
                ])
        }
    }
}
