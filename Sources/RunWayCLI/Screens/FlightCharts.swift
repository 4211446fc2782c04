import JSONText
import RunWayDomain
import TerminalViews

/// The Flight Summary's pictures: pace and heart rate over the run as braille line charts (pace drawn
/// with faster up, as running apps do), and the splits as bars (longer is slower). Total: a flight with
/// no samples, one sample or a stop the whole way says so instead of drawing.
enum FlightCharts {
    static func render(_ flight: JSONValue, style: GlyphStyle, width: Int) -> [String] {
        let samples = (flight["samples"]?.arrayValue ?? []).compactMap(FlightSummaryText.sample)
        let chartWidth = max(10, min(120, width - 16))
        var lines: [String] = []
        // Stopped (pace 0) or absurd values leave a gap rather than a spike.
        func series(_ value: KeyPath<FlightSample, Float>, below limit: Double) -> [Double?] {
            samples.map { Double($0[keyPath: value]) }.map { $0.isFinite && $0 > 0 && $0 < limit ? $0 : nil }
        }
        lines.append("  pace (faster up)")
        lines += LineChart(width: chartWidth, height: 5, style: style, inverted: true) { Format.pace($0) }
            .render(series(\.pace, below: 3600)).map { "  " + $0 }
        lines.append("  heart rate")
        lines += LineChart(width: chartWidth, height: 5, style: style) { Format.heartRate($0) }
            .render(series(\.heartRate, below: 400)).map { "  " + $0 }
        if let last = samples.last, last.time.isFinite, last.time > 0 {
            let end = Format.duration(Double(last.time))
            let labelWidth = (lines.last.map { TextWidth.of(String($0.prefix { $0 != "┤" && $0 != "|" })) } ?? 2) + 1
            lines.append(String(repeating: " ", count: labelWidth) + "0:00" + String(repeating: " ", count: max(1, chartWidth - 4 - end.count)) + end)
        }
        let splits = FlightAnalysis(samples: samples).splits
        if !splits.isEmpty {
            // From 90 % of the fastest split's pace, so that a few seconds a kilometre can be seen.
            let floor = (splits.map(\.pace).filter { $0.isFinite && $0 > 0 }.min() ?? 0) * 0.9
            lines.append("  splits (pace per km; longer is slower; bars start at \(Format.pace(floor)))")
            let rows = splits.map { split in
                Bars.Row(label: "km \(split.kilometre)\(split.isPartial ? "*" : "")", value: split.pace, text: Format.pace(split.pace))
            }
            lines += Bars.render(rows, width: max(10, chartWidth - 20), floor: floor, style: style).map { "  " + $0.trimmedRight }
        }
        return lines
    }
}
