import Foundation
import FoundationXML
import JSONText
import Posix
import TerminalViews
import Testing

@Suite struct TimelineTests {
    static func sample(_ t: Double, watch: DeviceSample, phone: DeviceSample) -> Timeline.Sample {
        Timeline.Sample(seconds: t, watch: watch, phone: phone)
    }

    /// 400 queued; the phone saves 100, is killed, comes back as another process and saves the rest.
    static let scenario = Timeline(
        pair: "demo", intervalMilliseconds: 100,
        samples: [
            sample(0, watch: .init(up: true, pid: 10, count: 400), phone: .down),
            sample(1, watch: .init(up: true, pid: 10, count: 300), phone: .init(up: true, pid: 20, count: 100)),
            sample(2, watch: .init(up: true, pid: 10, count: 300), phone: .down),
            sample(3, watch: .init(up: true, pid: 10, count: 100), phone: .init(up: true, pid: 21, count: 300)),
            sample(4, watch: .init(up: true, pid: 11, count: 0), phone: .init(up: true, pid: 21, count: 400)),
        ])

    @Test func marksAreDownUpAndANewPid() {
        let marks = Self.scenario.marks
        #expect(
            marks.map { "\($0.seconds) \($0.device) \($0.transition.rawValue) \($0.pid ?? 0)" } == [
                "1.0 phone up 20", "2.0 phone down 20", "3.0 phone up 21", "4.0 watch down 10", "4.0 watch up 11",
            ])
        #expect(Self.scenario.finalPhoneStored == 400)
        #expect(Self.scenario.finalWatchOutbox == 0)
        #expect(Transition.between(nil, .down).isEmpty)
        #expect(Transition.between(.init(up: true, pid: nil), .init(up: true, pid: 5)).isEmpty, "no pid, no restart")
    }

    @Test func theFileRoundTripsAndBadLinesAreNamed() throws {
        var text = Timeline.headerLine(pair: "demo", intervalMilliseconds: 100, phone: "/p", watch: "/w", startedAt: "2026-11-30T00:00:00Z") + "\n"
        for sample in Self.scenario.samples { text += Timeline.sampleLine(sample) + "\n" }
        let parsed = try Timeline.parse(text)
        #expect(parsed.samples == Self.scenario.samples)
        #expect(parsed.pair == "demo" && parsed.intervalMilliseconds == 100)
        // An interrupted recording: the header alone is an empty timeline, not an error.
        #expect(try Timeline.parse(text.split(separator: "\n")[0] + "\n").samples.isEmpty)
        for (bad, line) in [
            ("{\"t\":\"x\"}", 7), ("{\"t\":0,\"watch\":{\"up\":true},\"phone\":{}}", 7),
            ("{\"t\":5,\"watch\":{\"up\":true,\"pid\":0},\"phone\":{\"up\":false}}", 7), ("[", 7),
        ] {
            #expect(throws: Timeline.FormatError.self) { try Timeline.parse(text + bad + "\n") }
            do { _ = try Timeline.parse(text + bad + "\n") } catch { #expect(error.description.hasPrefix("line \(line):"), "\(error)") }
        }
        #expect(throws: Timeline.FormatError.self) { try Timeline.parse("") }
        #expect(throws: Timeline.FormatError.self) { try Timeline.parse("{\"runwayTimeline\":2,\"intervalMs\":100}") }
    }

    @Test func theTerminalChartMarksTheKillUnderItsColumn() throws {
        let lines = TimelineChart.render(Self.scenario, width: 41, height: 8)
        #expect(lines[0].hasPrefix("TIMELINE  pair demo, 4.0 s, 5 samples"))
        let markRow = try #require(lines.first { $0.contains("✕") })
        let axis = try #require(lines.first { $0.contains("└") })
        // The kill at 2 s of 4 s is in the middle column (20 of 0...40), under a tick of the axis.
        let offset = axis.distance(from: axis.startIndex, to: axis.firstIndex(of: "└")!) + 1
        let kill = markRow.distance(from: markRow.startIndex, to: markRow.firstIndex(of: "✕")!)
        #expect(kill == offset + 20, "\(lines.joined(separator: "\n"))")
        #expect(Array(axis)[kill] == "┴")
        #expect(markRow.contains("↻"), "the watch's new pid is a down and up in one column")
        #expect(lines.contains { $0.hasPrefix("marks: ") && $0.contains("2.0 s phone down (pid 20)") })
        #expect(lines.last == "end: watch outbox 0, phone stored 400")
        #expect(lines[1].hasPrefix("400 │"))
    }

    @Test func theChartAndTheSVGAreTotalForAnyTimeline() throws {
        var random = SeededGenerator(seed: 9)
        for round in 0..<150 {
            var t = 0.0
            let samples = (0..<Int.random(in: 0...400, using: &random)).map { _ -> Timeline.Sample in
                t += [0, 0.001, 1, 1e6].randomElement(using: &random)!
                func device() -> DeviceSample {
                    Bool.random(using: &random)
                        ? .down
                        : DeviceSample(
                            up: true, pid: Int.random(in: 1...3, using: &random),
                            count: [0, 1, 1_000_000_000, Int.random(in: 0...500, using: &random)].randomElement(using: &random)!)
                }
                // Times a file can never hold (the parser refuses them) must not crash a picture either.
                let seconds = round % 10 == 7 ? [Double.nan, .infinity, -1, t].randomElement(using: &random)! : min(t, 1e7)
                return Timeline.Sample(seconds: seconds, watch: device(), phone: device())
            }
            let timeline = Timeline(pair: round % 3 == 0 ? "<&\"'>" : "p\(round)", intervalMilliseconds: 100, samples: samples)
            let width = Int.random(in: -3...200, using: &random), height = Int.random(in: -3...40, using: &random)
            for style in [GlyphStyle.unicode, .ascii] {
                let lines = TimelineChart.render(timeline, width: width, height: height, style: style)
                let chartRows = lines.dropFirst().prefix(min(100, max(3, height)))
                #expect(Set(chartRows.map(TextWidth.of)).count == 1, "ragged: \(Array(chartRows))")
                if style == .ascii { #expect(lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) || $0.contains(timeline.pair) }) }
            }
            let svg = TimelineSVG.render(timeline)
            let parser = XMLParser(data: Data(svg.utf8))
            #expect(parser.parse(), "round \(round): \(String(describing: parser.parserError))")
            #expect(!svg.contains("nan") && !svg.contains("inf"))
        }
    }

    @Test func svgEscapesWhatXMLCannotHold() {
        #expect(TimelineSVG.escape("a<b & \"c\" 'd'>\u{01}") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;?")
    }
}
