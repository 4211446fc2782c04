/// The last minute of two counts as `runway top` polls them, for rates and sparklines. Bounded: points
/// older than the window are dropped as new ones come, so a `top` left open for a week holds one minute.
package struct CountHistory: Sendable {
    package struct Point: Sendable, Equatable {
        package var seconds: Double
        /// The watch's outbox depth, the phone's stored count, the watch's last acknowledged transfer:
        /// nil while the device does not answer.
        package var outbox: Int?
        package var stored: Int?
        package var acknowledged: Int?
        package init(seconds: Double, outbox: Int?, stored: Int?, acknowledged: Int?) {
            self.seconds = seconds
            self.outbox = outbox
            self.stored = stored
            self.acknowledged = acknowledged
        }
    }

    package let window: Double
    package private(set) var points: [Point] = []

    package init(window: Double = 60) { self.window = window.isFinite ? min(3600, max(1, window)) : 60 }

    /// Adds a point; one whose time goes back (a clock that is not monotonic) replaces the history.
    package mutating func add(_ point: Point) {
        guard point.seconds.isFinite else { return }
        if let last = points.last, point.seconds < last.seconds { points.removeAll() }
        points.append(point)
        let oldest = point.seconds - window
        if let keep = points.firstIndex(where: { $0.seconds >= oldest }), keep > 0 { points.removeFirst(keep) }
    }

    /// Per second over the last `seconds` (at least two points with a value, none of them lower than the
    /// one before — a restart or a deletion makes no rate): nil when it cannot be told.
    package func rate(_ value: KeyPath<Point, Int?>, over seconds: Double = 5) -> Double? {
        guard let last = points.last else { return nil }
        let recent = points.filter { $0.seconds >= last.seconds - seconds }
        let known = recent.compactMap { point in point[keyPath: value].map { (point.seconds, $0) } }
        guard let first = known.first, let end = known.last, end.0 > first.0 else { return nil }
        for (a, b) in zip(known, known.dropFirst()) where b.1 < a.1 { return nil }
        return Double(end.1 - first.1) / (end.0 - first.0)
    }

    /// The counts in `columns` equal slices of the window ending at the last point, each the last value
    /// seen in its slice (a slice no poll fell in keeps the value before it).
    package func columns(_ value: KeyPath<Point, Int?>, count columns: Int) -> [Double?] {
        let columns = min(1000, max(0, columns))
        guard columns > 0, let last = points.last else { return Array(repeating: nil, count: columns) }
        let start = last.seconds - window
        var result = [Double?](repeating: nil, count: columns)
        var seen = [Bool](repeating: false, count: columns)
        for point in points {
            let slice = min(columns - 1, max(0, Int((point.seconds - start) / window * Double(columns))))
            result[slice] = point[keyPath: value].map(Double.init)
            seen[slice] = true
        }
        let firstSeen = seen.firstIndex(of: true) ?? columns
        for index in 0..<columns where index > firstSeen && !seen[index] { result[index] = result[index - 1] }
        return result
    }
}
