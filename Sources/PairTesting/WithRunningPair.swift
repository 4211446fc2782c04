import Foundation

/// Runs `body` with a paired phone and watch in fresh homes, their daemons started, and cleans up at the
/// end of the scope — also when `body` throws: both daemons are killed and the homes removed (see
/// `SimulatedPair.cleanUp`). The fixture of almost every integration test:
///
///     try withRunningPair(tag: "range") { pair in
///         try pair.record(10)
///         try pair.expectDrainedAndClean(stored: 10)
///     }
///
/// `watch` and `phone` are each daemon's extra flags (kept for its restarts, as `watchArguments` and
/// `phoneArguments`); nil leaves that daemon to the body to start. The watch is started first, unless
/// `phoneFirst`.
@discardableResult
package func withRunningPair<T>(
    tag: String = "pair", watch: [String]? = [], phone: [String]? = [],
    phoneFirst: Bool = false, _ body: (SimulatedPair) throws -> T
) throws -> T {
    let pair = try SimulatedPair(tag: tag)
    defer { pair.cleanUp() }
    if let watch { pair.watchArguments = watch }
    if let phone { pair.phoneArguments = phone }
    if phoneFirst, phone != nil { try pair.startPhone() }
    if watch != nil { try pair.startWatch() }
    if !phoneFirst, phone != nil { try pair.startPhone() }
    return try body(pair)
}

/// The same for a pair whose daemons the body starts itself (with an environment, a crash point, or
/// after preparing the homes): fresh homes, paired, cleaned up at the end of the scope.
package func withPair<T>(tag: String = "pair", _ body: (SimulatedPair) throws -> T) throws -> T {
    try withRunningPair(tag: tag, watch: nil, phone: nil, body)
}
