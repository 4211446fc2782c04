/// The timeline in a terminal: the watch's outbox depth (●) and the phone's stored count (■) on one
/// count axis over time, with a dotted column and a mark under the axis where a daemon went down (✕) or
/// came up (▲). A device that did not answer leaves a gap: its count is not known then.
package enum TimelineChart {
    struct Glyphs {
        let watch, phone, both, rule, down, up, restart: Character
        let axis, corner, tick, line: Character
    }

    static let unicode = Glyphs(
        watch: "●", phone: "■", both: "◆", rule: "┊", down: "✕", up: "▲", restart: "↻",
        axis: "│", corner: "└", tick: "┴", line: "─")
    static let ascii = Glyphs(
        watch: "o", phone: "#", both: "*", rule: ":", down: "x", up: "^", restart: "@",
        axis: "|", corner: "+", tick: "+", line: "-")

    /// Always a chart `height` rows high and `width` columns wide (plus the axis), then the legend, the
    /// marks in words and the final counts. Width 10 to 500, height 3 to 100.
    package static func render(_ timeline: Timeline, width: Int, height: Int, style: GlyphStyle = .unicode) -> [String] {
        let g = style == .unicode ? unicode : ascii
        let width = min(500, max(10, width)), height = min(100, max(3, height))
        let duration = timeline.duration
        func column(_ seconds: Double) -> Int {
            guard duration > 0, seconds.isFinite else { return 0 }
            return min(width - 1, max(0, Int((seconds / duration * Double(width - 1)).rounded())))
        }
        // The last sample in each column: counts are states, the latest one stands for the column.
        var watch = [Int?](repeating: nil, count: width), phone = [Int?](repeating: nil, count: width)
        var filled = [Bool](repeating: false, count: width)
        for sample in timeline.samples {
            let x = column(sample.seconds)
            watch[x] = sample.watch.count
            phone[x] = sample.phone.count
            filled[x] = true
        }
        // Columns no sample fell in (a short recording on a wide chart) hold the previous column's state.
        for x in 1..<width where !filled[x] {
            watch[x] = watch[x - 1]
            phone[x] = phone[x - 1]
        }
        let top = max(1, (watch + phone).compactMap { $0 }.max() ?? 1)
        let scale = Scale(low: 0, high: Double(top))
        var grid = [[Character]](repeating: [Character](repeating: " ", count: width), count: height)
        var markRow = [Character](repeating: " ", count: width)
        for mark in timeline.marks {
            let x = column(mark.seconds)
            let glyph = mark.transition == .down ? g.down : g.up
            markRow[x] = markRow[x] == " " || markRow[x] == glyph ? glyph : g.restart
            for y in 0..<height { grid[y][x] = g.rule }
        }
        for x in 0..<width {
            let w = watch[x].map { height - 1 - scale.level(Double($0), levels: height) }
            let p = phone[x].map { height - 1 - scale.level(Double($0), levels: height) }
            if let w { grid[w][x] = g.watch }
            if let p { grid[p][x] = p == w ? g.both : g.phone }
        }
        let labelWidth = max(String(top).count, 1)
        var lines: [String] = []
        lines.append("TIMELINE  pair \(timeline.pair), \(seconds(duration)), \(timeline.samples.count) samples every \(timeline.intervalMilliseconds) ms")
        for (y, row) in grid.enumerated() {
            let label = y == 0 ? String(top) : (y == height - 1 ? "0" : "")
            lines.append(leftPad(label, labelWidth) + " " + String(g.axis) + String(row))
        }
        var axisLine = [Character](repeating: g.line, count: width)
        for x in 0..<width where markRow[x] != " " { axisLine[x] = g.tick }
        lines.append(String(repeating: " ", count: labelWidth + 1) + String(g.corner) + String(axisLine))
        lines.append(String(repeating: " ", count: labelWidth + 2) + String(markRow))
        let start = "0 s", end = seconds(duration)
        let gap = max(1, width - start.count - end.count)
        lines.append(String(repeating: " ", count: labelWidth + 2) + start + String(repeating: " ", count: gap) + end)
        lines.append("\(g.watch) watch outbox   \(g.phone) phone stored   \(g.both) both   \(g.down) down   \(g.up) up   \(g.restart) down and up")
        let marks = timeline.marks
        if !marks.isEmpty {
            let words = marks.prefix(20).map { mark in
                "\(seconds(mark.seconds)) \(mark.device) \(mark.transition.rawValue)" + (mark.pid.map { " (pid \($0))" } ?? "")
            }
            lines.append("marks: " + words.joined(separator: "; ") + (marks.count > 20 ? "; ... \(marks.count - 20) more" : ""))
        }
        lines.append(
            "end: watch outbox \(timeline.finalWatchOutbox.map(String.init) ?? "?"), phone stored \(timeline.finalPhoneStored.map(String.init) ?? "?")")
        return lines
    }

    /// `42.3 s`, total for any value.
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "? s" }
        let tenths = Int(clamping: Int64((min(max(value, 0), 1e12) * 10).rounded()))
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
