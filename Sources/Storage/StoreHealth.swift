import Synchronization

/// Whether a store has been found damaged — by a background `quick_check` (`BackgroundCheck`) or by
/// SQLite itself reporting corruption in a transaction. Shared by the store's connection, its
/// checkpointer and its check, on any thread. Once damaged it stays damaged for the life of the
/// process: nothing more is committed (`Database.transaction`), checkpointed into the file
/// (`Checkpointer`, and not at close either) or acknowledged (the session's acknowledgement gate).
package final class StoreHealth: Sendable {
    private let damaged = Atomic<Bool>(false)
    private let problems = Mutex<String?>(nil)

    package init() {}

    /// One atomic load: cheap enough for every commit and acknowledgement.
    package var isDamaged: Bool { damaged.load(ordering: .acquiring) }

    /// What was found, once damaged.
    package var damage: String? { problems.withLock { $0 } }

    /// Records the damage (the first report wins); true the first time.
    @discardableResult
    package func markDamaged(_ found: String) -> Bool {
        let first = problems.withLock { current in
            guard current == nil else { return false }
            current = found
            return true
        }
        damaged.store(true, ordering: .releasing)
        return first
    }
}
