import Foundation

/// One row of the bench's table: figure, median, min–max, target, met/missed.
typealias Row = (String, String, String, String, String)

func range(_ sample: Sample, _ decimals: Int = 0) -> String {
    "\(format(sample.min, decimals))–\(format(sample.max, decimals))"
}

/// The drain and the baseline, run alternately `runs` times each in this invocation (drain, baseline,
/// drain, …), so that both meet the same minutes of the machine: the rates, and their ratio best against
/// best (the fastest each managed: what the code can do when the machine lets it) and median against
/// median. `headline` gets the ratios for the history line.
func drainRows(_ scenarios: Scenarios, runs: Int, size: Int, headline: inout [String]) throws -> [Row] {
    var drain = Sample(), baseline = Sample()
    for run in 1...runs {
        progress("drain \(run)/\(runs): \(scenarios.count) flights")
        drain.add(Double(scenarios.count) / (try scenarios.drain(backlog: scenarios.count).seconds))
        progress("baseline \(run)/\(runs)")
        baseline.add(try scenarios.baseline(size: size))
        progress(String(format: "  drain %.0f/s, baseline %.0f/s", drain.values.last!, baseline.values.last!))
    }
    let best = drain.max / baseline.max
    let median = drain.median / baseline.median
    headline.append("drain/baseline \(format(best, 2))× best, \(format(median, 2))× median")
    return [
        (
            "drain (\(grouped(Double(scenarios.count))) flights, \(runs) runs; best \(grouped(drain.max)))",
            "\(grouped(drain.median)) flights/s", "\(grouped(drain.min))–\(grouped(drain.max))", "", ""
        ),
        (
            "drain payload", "\(format(drain.median * Double(size) / 1e6, 1)) MB/s",
            "\(format(drain.min * Double(size) / 1e6, 1))–\(format(drain.max * Double(size) / 1e6, 1))", "", ""
        ),
        (
            "baseline (same records, no session; alternating with the drain; best \(grouped(baseline.max)))",
            "\(grouped(baseline.median)) records/s", "\(grouped(baseline.min))–\(grouped(baseline.max))", "", ""
        ),
        ("drain / baseline, best against best", format(best, 2) + "×", "", "≥ 0.9×", best >= 0.9 ? "met" : "missed"),
        ("drain / baseline, median against median", format(median, 2) + "×", "", "", ""),
    ]
}

/// Latency on an idle host and under load: another pair draining `load`, `loadRuns` times (a fresh pair
/// each time), the flights measured during all of them pooled — one drain gives ~200, whose p99 is the
/// third-slowest; the p99 row's range is each drain's own.
func latencyRows(_ scenarios: Scenarios, samples: Int, load: Int, loadRuns: Int, headline: inout [String]) throws -> [Row] {
    progress("latency: \(samples) flights")
    let idle = try scenarios.latency(samples: samples)
    var loaded = (sample: Sample(), drainSeconds: 0.0)
    var perDrain = Sample()
    for run in 1...loadRuns {
        progress("latency while another pair drains \(load) (\(run)/\(loadRuns))")
        let one = try scenarios.latencyUnderLoad(backlog: load)
        loaded.sample.values += one.sample.values
        loaded.drainSeconds += one.drainSeconds
        perDrain.add(one.sample.percentile(99))
    }
    let drains = perDrain.values.count == 1 ? "its" : "their"
    // Homes moved off /tmp (`--latency-dir`, `--load-dir`) are named in the rows.
    let measured = scenarios.latencyDirectory == "/tmp" ? "" : ", its homes in \(scenarios.latencyDirectory)"
    let draining = scenarios.loadDirectory == "/tmp" ? "" : " in \(scenarios.loadDirectory)"
    headline.append("latency p99 \(format(idle.percentile(99), 2)) ms idle, \(format(loaded.sample.percentile(99), 2)) ms under load")
    return [
        ("latency p50 (\(samples) flights\(measured))", format(idle.percentile(50), 2) + " ms", range(idle, 2), "", ""),
        ("latency p99", format(idle.percentile(99), 2) + " ms", "", "≤ 5 ms", idle.percentile(99) <= 5 ? "met" : "missed"),
        (
            "latency p50 while another pair\(draining) drains \(grouped(Double(load))), \(perDrain.values.count)× (\(loaded.sample.values.count) flights in \(drains) \(format(loaded.drainSeconds, 1)) s\(measured))",
            format(loaded.sample.percentile(50), 2) + " ms", range(loaded.sample, 2), "", ""
        ),
        (
            "latency p99 while another pair\(draining) drains \(grouped(Double(load))) (min–max: each drain's p99)",
            format(loaded.sample.percentile(99), 2) + " ms",
            range(perDrain, 2), "≤ 5 ms", loaded.sample.percentile(99) <= 5 ? "met" : "missed"
        ),
    ]
}

/// `--pairs N`: N pairs on one host.
func pairRows(_ scenarios: Scenarios, count: Int, headline: inout [String]) throws -> [Row] {
    let result = try ManyPairs(scenarios: scenarios, count: count).run()
    let perDaemon = (result.phonePSS.values + result.watchPSS.values).reduce(0, +) / Double(2 * count)
    headline.append("\(count) pairs up in \(format(result.readySeconds, 1)) s, \(format(perDaemon / 1024, 2)) MB PSS per idle daemon")
    let n = grouped(Double(count))
    return [
        (
            "\(n) pairs: all \(grouped(Double(2 * count))) daemons started at once → every one ready", format(result.readySeconds, 2) + " s", "",
            count >= 1000 ? "≤ 30 s" : "", count >= 1000 ? (result.readySeconds <= 30 ? "met" : "missed") : ""
        ),
        (
            "\(n) pairs: PSS per idle phone-daemon", "\(format(result.phonePSS.median / 1024, 2)) MB",
            "\(format(result.phonePSS.min / 1024, 2))–\(format(result.phonePSS.max / 1024, 2))", "≤ 1 MB",
            result.phonePSS.median <= 1024 ? "met" : "missed"
        ),
        (
            "\(n) pairs: PSS per idle watch-agent", "\(format(result.watchPSS.median / 1024, 2)) MB",
            "\(format(result.watchPSS.min / 1024, 2))–\(format(result.watchPSS.max / 1024, 2))", "≤ 1 MB",
            result.watchPSS.median <= 1024 ? "met" : "missed"
        ),
        ("\(n) pairs: total PSS of every daemon", "\(format(Double(result.totalPSSKilobytes) / 1024, 0)) MB", "", "", ""),
        (
            "\(n) pairs: \(result.checkedFlights / count) runs each, every link up at once → every outbox empty (every id checked)",
            format(result.drainSeconds, 2) + " s", "", "", ""
        ),
        ("\(n) pairs: SIGTERM to all → every one exited 0", format(result.stopSeconds, 2) + " s", "", "", ""),
    ]
}

/// Appends one line to the history between `<!-- history:begin -->` and `<!-- history:end -->`
/// (created at the end of the document if missing): date, commit, the headline figures.
func appendHistory(_ document: inout String, _ line: String) {
    let end = "<!-- history:end -->"
    if document.range(of: end) == nil {
        document += "\n## History\n\nOne line per full `scripts/bench` run (written by it).\n\n<!-- history:begin -->\n\(end)\n"
    }
    if let range = document.range(of: end) { document.insert(contentsOf: "- \(line)\n", at: range.lowerBound) }
}
