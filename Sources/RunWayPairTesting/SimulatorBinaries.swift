import Foundation
import PairTesting
import Posix

/// The simulator's binaries a `DevicePair` runs, found or built where your package's own build puts its
/// products — `.build/debug` (or `release`), beside your apps and your test runner — so that the modules
/// your build already compiled (WatchConnectivity, AppHost, Control…) are reused, not compiled a second
/// time into a tree of their own.
///
/// Only what the pair runs is built: phone-os always (it hosts the phone's app), phone-daemon only for
/// RunWay's own phone app, watch-agent (the watch, or the launcher of your watch app), the device-time
/// preload beside them (`libRunWayDeviceTime.so`, which they set for your apps), runway (pairing, app
/// open/close, the clock); watch-os only for a scenario that names a `watchApp`. One `swift build
/// --product P` each, from your package (SwiftPM builds a dependency's executable product there), with
/// `--ignore-lock`: the `swift test` running the tests holds the build directory's lock for as long as
/// it runs, and builds nothing while the tests do. Each product's build is one line on stderr, with the
/// time it took; the build's own output goes to `.build/runway-pair-build.log`. When every binary wanted
/// is newer than every source file of RunWay Pair, nothing is run at all (a null build costs a directory
/// walk, not a `swift build` per binary).
///
/// `RUNWAY_BIN_DIR=DIR` takes DIR's binaries and builds nothing; this package's own tests find them next
/// to their runner.
enum SimulatorBinaries {
    /// A product of RunWay Pair that a pair may run, and the file it builds.
    struct Artefact: Sendable, Equatable {
        let product: String
        let file: String
        init(_ product: String, file: String? = nil) {
            self.product = product
            self.file = file ?? product
        }
    }

    static let phoneOS = Artefact("phone-os")
    static let phoneDaemon = Artefact("phone-daemon")
    static let watchOS = Artefact("watch-os")
    static let watchAgent = Artefact("watch-agent")
    static let runway = Artefact("runway")
    /// The device-time preload the OSes (and watch-agent for an app of yours) set for the apps they launch,
    /// looked for next to them: your apps' `Date()` is the device clock's (docs/device-time.md).
    static let deviceTime = Artefact("RunWayDeviceTime", file: "libRunWayDeviceTime.so")
    /// Everything a pair can run, in the order they are built.
    static let all = [phoneOS, watchAgent, deviceTime, runway, phoneDaemon, watchOS]

    /// What a `DevicePair` with these apps runs: phone-os, the watch's watch-agent, the device-time preload
    /// beside them, runway, and RunWay's phone app (phone-daemon) when the phone's app is not yours.
    static func needed(phoneApp: String?, watchApp: String?) -> [Artefact] {
        [phoneOS, watchAgent, deviceTime, runway] + (phoneApp == nil ? [phoneDaemon] : [])
    }

    /// Where the build happens: your package, its build directory, the configuration, and the directory
    /// its products land in.
    struct Build: Equatable {
        var package: String
        var scratch: String
        var configuration: String
        var products: String
    }

    // MARK: - Finding them

    /// `RUNWAY_BIN_DIR` as the test run was started with it (DevicePair sets it for the harness after).
    static let explicit = ProcessInfo.processInfo.environment["RUNWAY_BIN_DIR"]
    private static let lock = NSLock()
    nonisolated(unsafe) private static var ready: [String: String] = [:]

    /// The directory holding `artefacts`, built first if they are missing or older than RunWay Pair's
    /// sources. Serialised within the process (tests run at once share one build) and across processes
    /// (a lock file in the build directory).
    static func directory(for artefacts: [Artefact]) throws -> String {
        if let explicit { return explicit }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        // This package's own tests: the binaries are built beside them by `swift build --build-tests`.
        if FileManager.default.isExecutableFile(atPath: runner + "/phone-os"), isRunWayPair(packageOf: runner) { return runner }
        lock.lock()
        defer { lock.unlock() }
        let key = artefacts.map(\.product).joined(separator: " ")
        if let known = ready[key] { return known }
        guard let build = build(runnerDirectory: runner) else {
            throw HarnessError(
                "DevicePair: cannot tell which package's build runs these tests (no SwiftPM build directory above \(runner)); "
                    + "build the simulator yourself and set RUNWAY_BIN_DIR (docs/your-app.md)")
        }
        let products = try ensure(artefacts, in: build)
        ready[key] = products
        return products
    }

    /// Your package's build, read from where the test runner is: `SCRATCH/TRIPLE/CONFIGURATION/X.xctest`
    /// (SCRATCH is the directory holding `workspace-state.json`, `.build` unless `--scratch-path` said
    /// otherwise); the package is SCRATCH's parent, or the current directory, whichever has a
    /// Package.swift.
    static func build(runnerDirectory: String, currentDirectory: String = FileManager.default.currentDirectoryPath) -> Build? {
        var directory = URL(fileURLWithPath: runnerDirectory)
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("workspace-state.json").path) {
                let parent = directory.deletingLastPathComponent().path
                let package =
                    FileManager.default.fileExists(atPath: parent + "/Package.swift")
                    ? parent
                    : FileManager.default.fileExists(atPath: currentDirectory + "/Package.swift") ? currentDirectory : nil
                guard let package else { return nil }
                let configuration = URL(fileURLWithPath: runnerDirectory).lastPathComponent == "release" ? "release" : "debug"
                return Build(package: package, scratch: directory.path, configuration: configuration, products: runnerDirectory)
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// The RunWay Pair whose sources built this file: its checkout, or a clone beside your package.
    static let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Whether the runner's package is RunWay Pair itself (its own tests, its example by path).
    private static func isRunWayPair(packageOf runner: String) -> Bool {
        guard let build = build(runnerDirectory: runner) else { return true }
        return URL(fileURLWithPath: build.package).resolvingSymlinksInPath().path == URL(fileURLWithPath: sourceRoot).resolvingSymlinksInPath().path
    }

    // MARK: - Building them

    /// Builds whichever of `artefacts` is missing or older than RunWay Pair's newest source, one product at
    /// a time, each said in one line on stderr; a null build runs nothing. Returns where they are.
    static func ensure(_ artefacts: [Artefact], in build: Build) throws -> String {
        let lockFile = build.scratch + "/runway-pair-build.lock"
        let held: FileLock
        do {
            held = try FileLock(path: lockFile, waitingUpTo: 3_600_000)
        } catch {
            throw HarnessError("DevicePair: cannot take \(lockFile): \(error)")
        }
        defer { withExtendedLifetime(held) {} }
        let newestSource = newestModification(under: sourceRoot)
        func stale(_ build: Build) -> [Artefact] {
            artefacts.filter { modification(build.products + "/" + $0.file).map { $0 < newestSource } ?? true }
        }
        var build = build
        var toBuild = stale(build)
        guard !toBuild.isEmpty else { return build.products }
        // Without --ignore-lock (a SwiftPM before 5.10) the build cannot share swift test's build directory:
        // it goes to one of its own, and compiles there what it needs.
        let sharing = supportsIgnoreLock()
        if !sharing {
            build.scratch += "/runway-pair"
            build.package = sourceRoot
            build.products = build.scratch + "/" + build.configuration
            toBuild = stale(build)
            guard !toBuild.isEmpty else { return build.products }
        }
        let log = build.scratch + "/runway-pair-build.log"
        try? FileManager.default.createDirectory(atPath: build.scratch, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        say(
            "DevicePair: building \(toBuild.map(\.product).joined(separator: ", ")) in \(build.products) (from \(sourceRoot); "
                + "once, then only when RunWay Pair changes; the build's output in \(log); RUNWAY_BIN_DIR=DIR uses DIR's instead)")
        let started = Date()
        for (index, artefact) in toBuild.enumerated() {
            let begun = Date()
            var arguments = ["build", "--package-path", build.package, "--scratch-path", build.scratch, "-c", build.configuration]
            arguments += ["--product", artefact.product] + (sharing ? ["--ignore-lock"] : [])
            try swift(arguments, log: log)
            guard FileManager.default.fileExists(atPath: build.products + "/" + artefact.file) else {
                throw HarnessError("DevicePair: swift build --product \(artefact.product) built no \(artefact.file) in \(build.products): see \(log)")
            }
            say("DevicePair: [\(index + 1)/\(toBuild.count)] \(artefact.product) built (\(seconds(Date().timeIntervalSince(begun))) s)")
        }
        say("DevicePair: the simulator's binaries are in \(build.products) (built in \(seconds(Date().timeIntervalSince(started))) s)")
        return build.products
    }

    /// Whether this toolchain's `swift build` takes `--ignore-lock` (SwiftPM 5.10 and later): without it a
    /// build from inside `swift test` would wait for `swift test`'s own lock for ever.
    private static func supportsIgnoreLock() -> Bool {
        let help = NSTemporaryDirectory() + "runway-pair-swift-help-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: help) }
        guard (try? swift(["build", "--help-hidden"], log: help)) != nil else { return false }
        return ((try? String(contentsOfFile: help, encoding: .utf8)) ?? "").contains("--ignore-lock")
    }

    /// Runs `swift ARGUMENTS`, its output appended to `log`; throws unless it exits 0.
    private static func swift(_ arguments: [String], log: String) throws {
        if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
        guard let output = FileHandle(forWritingAtPath: log) else { throw HarnessError("DevicePair: cannot write \(log)") }
        defer { try? output.close() }
        output.seekToEndOfFile()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift"] + arguments
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            throw HarnessError("DevicePair: cannot run swift (is the toolchain on PATH?): \(error)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("DevicePair: swift \(arguments.joined(separator: " ")) failed (exit \(process.terminationStatus)): see \(log)")
        }
    }

    // MARK: - What is newer

    /// The newest modification time of RunWay Pair's sources: `Package.swift` and everything under
    /// `Sources` (what the binaries are built from).
    static func newestModification(under root: String) -> Double {
        var newest = modification(root + "/Package.swift") ?? 0
        let sources = URL(fileURLWithPath: root + "/Sources")
        if let walk = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: [.contentModificationDateKey]) {
            for case let url as URL in walk {
                if let date = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate {
                    newest = max(newest, date.timeIntervalSince1970)
                }
            }
        }
        return newest
    }

    static func modification(_ path: String) -> Double? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let date = attributes[.modificationDate] as? Date else { return nil }
        return date.timeIntervalSince1970
    }

    private static func say(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    private static func seconds(_ value: Double) -> String { String(Double(Int(value * 10)) / 10) }
}
