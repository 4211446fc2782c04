import Foundation
import FoundationXML
import JSONText
import Posix
import TerminalViews
import Testing

/// Values of every awkward kind: none, one, constant, huge, tiny, negative, not finite, missing.
func awkwardSeries(_ random: inout SeededGenerator) -> [Double?] {
    let specials: [Double?] = [
        nil, 0, -0.0, 1, -1, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
        .infinity, -.infinity, .nan, 1e300, -1e300, 5.5,
    ]
    switch Int.random(in: 0..<6, using: &random) {
    case 0: return []
    case 1: return [specials.randomElement(using: &random)!]
    case 2: return Array(repeating: Double.random(in: -1e6...1e6, using: &random), count: Int.random(in: 1...50, using: &random))
    case 3: return (0..<Int.random(in: 0...2000, using: &random)).map { _ in Double.random(in: -1e3...1e3, using: &random) }
    default:
        return (0..<Int.random(in: 0...300, using: &random)).map { _ in
            Bool.random(using: &random) ? specials.randomElement(using: &random)! : Double.random(in: -1...1, using: &random) * .greatestFiniteMagnitude
        }
    }
}

@Suite struct ChartPropertyTests {
    @Test func scaleFractionsStayInsideZeroToOneForAnyValues() {
        var random = SeededGenerator(seed: 1)
        for _ in 0..<500 {
            let values = awkwardSeries(&random)
            guard let scale = Scale(values) else {
                #expect(!values.contains { $0?.isFinite == true })
                continue
            }
            for case let value? in values {
                let fraction = scale.fraction(value)
                #expect(fraction >= 0 && fraction <= 1, "\(value) in \(scale)")
                let level = scale.level(value, levels: 8)
                #expect((0..<8).contains(level))
            }
        }
        // The extremes of a range that overflows when subtracted still land at the ends.
        let huge = Scale([-Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude])!
        #expect(huge.fraction(.greatestFiniteMagnitude) == 1)
        #expect(huge.fraction(-.greatestFiniteMagnitude) == 0)
        #expect(huge.fraction(0) == 0.5)
        #expect(Scale([7, 7])!.fraction(7) == 0.5)
    }

    @Test func aSparklineHasOneCharacterPerValue() {
        var random = SeededGenerator(seed: 2)
        for _ in 0..<500 {
            let values = awkwardSeries(&random)
            for style in [GlyphStyle.unicode, .ascii] {
                let line = Sparkline.render(values, floor: Bool.random(using: &random) ? 0 : nil, style: style)
                #expect(line.count == values.count)
                if style == .ascii { #expect(line.unicodeScalars.allSatisfy { $0.isASCII }) }
            }
        }
        #expect(Sparkline.render([0, 1, 2, 3, 4, 5, 6, 7]) == "▁▂▃▄▅▆▇█")
        #expect(Sparkline.render([nil, 3]) == " █")
        #expect(Sparkline.render([]) == "")
    }

    @Test func aLineChartIsAlwaysItsHeightAndWidth() {
        var random = SeededGenerator(seed: 3)
        for _ in 0..<300 {
            let values = awkwardSeries(&random)
            let width = Int.random(in: -5...140, using: &random), height = Int.random(in: -5...12, using: &random)
            for style in [GlyphStyle.unicode, .ascii] {
                let chart = LineChart(width: width, height: height, style: style, inverted: Bool.random(using: &random)) { "\($0)" }
                let lines = chart.render(values)
                #expect(lines.count == max(1, min(100, height)))
                let widths = Set(lines.map(TextWidth.of))
                #expect(widths.count == 1, "ragged chart: \(lines)")
                if !values.contains(where: { $0?.isFinite == true }) {
                    #expect(lines.joined().contains("(no values)") || max(1, min(500, width)) < 11)
                }
            }
        }
    }

    @Test func aRisingSeriesGoesUpAndAnInvertedOneGoesDown() {
        let rising = LineChart(width: 4, height: 2, style: .ascii) { "\(Int($0))" }.render([1, 2, 3, 4])
        #expect(rising == ["4 |   *", "1 |*   "] || rising[0].hasSuffix("*") && rising[1].contains("|*"), "\(rising)")
        let inverted = LineChart(width: 4, height: 2, style: .ascii, inverted: true) { "\(Int($0))" }.render([1, 2, 3, 4])
        #expect(inverted[0].contains("|*") && inverted[1].hasSuffix("*"), "\(inverted)")
        #expect(inverted[0].hasPrefix("1 "), "inverted: the low value is on top")
    }

    @Test func barsAreTotalAndTheLongestFillsTheWidth() {
        var random = SeededGenerator(seed: 4)
        for _ in 0..<300 {
            let values = awkwardSeries(&random).prefix(40)
            let rows = values.enumerated().map { Bars.Row(label: "km \($0.offset)", value: $0.element, text: "x") }
            let width = Int.random(in: 1...60, using: &random)
            let lines = Bars.render(rows, width: width)
            #expect(lines.count == rows.count)
            #expect(Set(lines.map(TextWidth.of)).count <= 1)
        }
        let lines = Bars.render([.init(label: "a", value: 10, text: ""), .init(label: "b", value: 5, text: "")], width: 10)
        #expect(lines[0].hasSuffix("██████████"))
        #expect(lines[1].contains("█████ ") && !lines[1].contains("██████"))
    }

    @Test func fittingTextCountsWideCharactersTwice() {
        #expect(TextWidth.of("러닝") == 4)
        #expect(TextWidth.fit("러닝웨이", 5) == "러닝…")
        #expect(TextWidth.fit("abc", 5) == "abc  ")
        #expect(TextWidth.fit("abcdef", 4) == "abc…")
        #expect(TextWidth.fit("abc", 0) == "")
        var random = SeededGenerator(seed: 5)
        let pieces = ["a", "러", "ラ", "█", "⣿", " ", "é"]
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 0...30, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let columns = Int.random(in: 0...20, using: &random)
            #expect(TextWidth.of(TextWidth.fit(text, columns)) == columns)
        }
    }

    @Test func resamplingKeepsOrderAndNeverOverflows() {
        #expect(resample([1, 2, 3, 4], into: 2) == [1.5, 3.5])
        #expect(resample([5], into: 3) == [5, nil, nil])
        #expect(resample([], into: 2) == [nil, nil])
        #expect(resample([.greatestFiniteMagnitude, .greatestFiniteMagnitude], into: 1) == [.greatestFiniteMagnitude])
        #expect(resample([1, 2], into: 0).isEmpty)
    }

    @Test func countHistoryKeepsAMinuteAndRatesOnlyWhatRose() {
        var history = CountHistory(window: 60)
        for second in 0..<600 {
            history.add(.init(seconds: Double(second), outbox: 600 - second, stored: second * 2, acknowledged: second))
        }
        #expect(history.points.count == 61)
        #expect(history.rate(\.stored) == 2)
        #expect(history.rate(\.acknowledged) == 1)
        #expect(history.rate(\.outbox) == nil, "a falling count has no rate")
        let columns = history.columns(\.stored, count: 30)
        #expect(columns.count == 30 && columns.last == 1198)
        history.add(.init(seconds: 10, outbox: nil, stored: nil, acknowledged: nil))
        #expect(history.points.count == 1, "time going back starts again")
        #expect(history.rate(\.stored) == nil)
        #expect(CountHistory().columns(\.stored, count: 5) == [nil, nil, nil, nil, nil])
    }
}
