/// The timeline as an SVG picture, written by hand: two polylines on one count axis, a dashed vertical
/// line with a label at each mark, a legend. Well-formed XML for any timeline (text is escaped, every
/// number finite).
package enum TimelineSVG {
    package static func render(_ timeline: Timeline, title: String? = nil) -> String {
        let width = 800.0, height = 360.0
        let left = 64.0, right = 20.0, top = 48.0, bottom = 64.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let duration = timeline.duration
        let highest = max(1, timeline.samples.flatMap { [$0.watch.count, $0.phone.count] }.compactMap { $0 }.max() ?? 1)
        func x(_ seconds: Double) -> Double { duration > 0 ? left + min(1, max(0, seconds / duration)) * plotWidth : left }
        func y(_ count: Int) -> Double { top + plotHeight - Double(count) / Double(highest) * plotHeight }

        var out: [String] = []
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        out.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"sans-serif\" font-size=\"12\">"
        )
        out.append("<title>\(escape(title ?? "RunWay Pair timeline: pair \(timeline.pair)"))</title>")
        out.append("<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"white\"/>")
        out.append(
            "<text x=\"\(n(left))\" y=\"20\" font-size=\"14\" font-weight=\"bold\">\(escape("pair \(timeline.pair): the watch's outbox and the phone's stored flights"))</text>"
        )
        // The count scale, then the axes over its grid lines.
        for count in [0, highest / 2, highest] {
            out.append("<text x=\"\(n(left - 6))\" y=\"\(n(y(count) + 4))\" text-anchor=\"end\">\(count)</text>")
            out.append("<line x1=\"\(n(left))\" y1=\"\(n(y(count)))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(y(count)))\" stroke=\"#ddd\"/>")
        }
        out.append("<line x1=\"\(n(left))\" y1=\"\(n(top))\" x2=\"\(n(left))\" y2=\"\(n(top + plotHeight))\" stroke=\"black\"/>")
        out.append("<line x1=\"\(n(left))\" y1=\"\(n(top + plotHeight))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(top + plotHeight))\" stroke=\"black\"/>")
        out.append("<text x=\"\(n(left))\" y=\"\(n(top + plotHeight + 18))\">0 s</text>")
        out.append("<text x=\"\(n(left + plotWidth))\" y=\"\(n(top + plotHeight + 18))\" text-anchor=\"end\">\(escape(TimelineChart.seconds(duration)))</text>")
        // Marks under the lines.
        for (index, mark) in timeline.marks.enumerated() {
            let mx = x(mark.seconds)
            let colour = mark.transition == .down ? "#c0392b" : "#27ae60"
            out.append("<line x1=\"\(n(mx))\" y1=\"\(n(top))\" x2=\"\(n(mx))\" y2=\"\(n(top + plotHeight))\" stroke=\"\(colour)\" stroke-dasharray=\"4 3\"/>")
            let label = "\(mark.device) \(mark.transition.rawValue)"
            out.append("<text x=\"\(n(mx + 3))\" y=\"\(n(top - 6 - Double(index % 2) * 12 + 12))\" fill=\"\(colour)\" class=\"mark\">\(escape(label))</text>")
        }
        for (name, colour, value) in [
            ("watch outbox", "#2c7fb8", { (s: Timeline.Sample) in s.watch.count }),
            ("phone stored", "#e6550d", { (s: Timeline.Sample) in s.phone.count }),
        ] {
            for run in runs(timeline.samples.map { ($0.seconds, value($0)) }, columns: Int(plotWidth)) where !run.isEmpty {
                let points = run.map { "\(n(x($0.0))),\(n(y($0.1)))" }.joined(separator: " ")
                out.append(
                    "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" class=\"\(name.split(separator: " ").joined(separator: "-"))\" points=\"\(points)\"/>"
                )
            }
        }
        // The legend.
        let legendY = height - 18
        out.append("<line x1=\"\(n(left))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(left + 20))\" y2=\"\(n(legendY - 4))\" stroke=\"#2c7fb8\" stroke-width=\"2\"/>")
        out.append("<text x=\"\(n(left + 26))\" y=\"\(n(legendY))\">watch outbox</text>")
        out.append(
            "<line x1=\"\(n(left + 130))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(left + 150))\" y2=\"\(n(legendY - 4))\" stroke=\"#e6550d\" stroke-width=\"2\"/>")
        out.append("<text x=\"\(n(left + 156))\" y=\"\(n(legendY))\">phone stored</text>")
        out.append("<text x=\"\(n(left + 270))\" y=\"\(n(legendY))\" fill=\"#c0392b\">\(escape("- - down"))</text>")
        out.append("<text x=\"\(n(left + 340))\" y=\"\(n(legendY))\" fill=\"#27ae60\">\(escape("- - up"))</text>")
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// The known stretches of a series (a gap where the device did not answer), at most one point per
    /// pixel column (the last), so a long recording stays a small file.
    static func runs(_ points: [(Double, Int?)], columns: Int) -> [[(Double, Int)]] {
        let duration = points.last.map { $0.0.isFinite ? max(0, $0.0) : 0 } ?? 0
        var runs: [[(Double, Int)]] = [[]]
        var lastColumn = -1
        for (seconds, count) in points {
            guard let count else {
                if !(runs.last?.isEmpty ?? true) { runs.append([]) }
                lastColumn = -1
                continue
            }
            let ratio = duration > 0 ? seconds / duration : 0
            let column = ratio.isFinite ? Int(min(1, max(0, ratio)) * Double(max(1, columns))) : 0
            if column == lastColumn, !runs[runs.count - 1].isEmpty {
                runs[runs.count - 1][runs[runs.count - 1].count - 1] = (seconds, count)
            } else {
                runs[runs.count - 1].append((seconds, count))
            }
            lastColumn = column
        }
        return runs
    }

    /// A coordinate with one decimal; 0 for anything not finite.
    static func n(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = Int64((min(max(value, -1e9), 1e9) * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    package static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // Control characters are not allowed in XML 1.0 at all.
            case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t": out += "?"
            case _ where scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
