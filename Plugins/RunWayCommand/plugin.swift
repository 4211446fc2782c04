import Foundation
import PackagePlugin

/// `swift package runway ARGUMENTS…`: the `runway` command line for a package that depends on RunWay Pair.
///
/// It builds the simulator's binaries (phone-os, phone-daemon, watch-os, watch-agent, runway, and the
/// device-time preload the OSes set for your apps, libRunWayDeviceTime.so) from the
/// RunWay Pair your package depends on, as your own build builds its products — in your `.build/debug`,
/// reusing the modules your build compiled (where `DevicePair` builds them too) — each said in one line the
/// first time, nothing at all once they are newer than RunWay Pair's sources; builds the executables of
/// your package that `--phone-app NAME` / `--watch-app NAME` name by product, puts their paths there, and
/// runs `runway` with every other argument as it is. `swift package runway which` prints the directory the
/// binaries are in and nothing else, for `PATH` (`export PATH="$(swift package runway which):$PATH"`).
///
/// What SwiftPM does around a command plugin: all it prints (runway's stdout and stderr alike) reaches
/// `swift package`'s stdout, and any failure is `swift package`'s exit 1 — so a runway that fails says
/// its own status in SwiftPM's error line (`error: runway exited with status 2`); for runway's own exit
/// codes and streams, run it from `PATH`. The plugin declares no permission: on Linux SwiftPM runs plugins
/// in no sandbox, and none it could ask for (writing the package directory, network scopes) covers homes
/// anywhere and daemons that outlive the command (docs/platforms.md).
@main struct RunWayCommand: CommandPlugin {
    static let appOptions = ["--phone-app", "--watch-app"]
    /// The simulator's products and the files they build, in the order they are built (the largest last):
    /// the five binaries and the device-time preload the OSes set for your apps (`libRunWayDeviceTime.so`).
    static let simulator = [
        ("phone-os", "phone-os"), ("watch-os", "watch-os"), ("watch-agent", "watch-agent"), ("phone-daemon", "phone-daemon"),
        ("RunWayDeviceTime", "libRunWayDeviceTime.so"), ("runway", "runway"),
    ]

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let simulatorPackage = try Self.simulatorPackage(context.package)
        // `which` prints the directory alone (for `$(…)`: all a plugin prints reaches the same stdout).
        let bin = try binaries(context, simulatorPackage, quiet: arguments == ["which"])
        if arguments == ["which"] {
            print(bin.path)
            return
        }
        let products = context.package.products.compactMap { ($0 as? ExecutableProduct)?.name }.sorted()
        var mapped: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if Self.appOptions.contains(argument), index < arguments.count {
                mapped += [argument, try app(arguments[index], argument, products, context)]
                index += 1
            } else if let option = Self.appOptions.first(where: { argument.hasPrefix($0 + "=") }) {
                mapped.append(option + "=" + (try app(String(argument.dropFirst(option.count + 1)), option, products, context)))
            } else {
                mapped.append(argument)
            }
        }
        let runway = Process()
        runway.executableURL = bin.appendingPathComponent("runway")
        runway.arguments = mapped
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        runway.environment = environment
        try runway.run()
        runway.waitUntilExit()
        guard runway.terminationStatus == 0 else {
            // SwiftPM turns any plugin failure into its own exit 1: the status runway gave is said here.
            throw RunWayPluginError(
                "runway exited with status \(runway.terminationStatus) (swift package exits 1 for any plugin failure; runway from PATH gives its own: "
                    + "export PATH=\"$(swift package runway which):$PATH\")")
        }
    }

    /// What `--phone-app VALUE` / `--watch-app VALUE` becomes: a product of your package, built, as its path;
    /// a path (it has a `/`) as it is; any other name is one line naming the products there are.
    func app(_ value: String, _ option: String, _ products: [String], _ context: PluginContext) throws -> String {
        if value.contains("/") { return value }
        guard products.contains(value) else {
            let list = products.isEmpty ? "it has none" : "its executable products: " + products.joined(separator: ", ")
            throw RunWayPluginError(
                "\(option) \(value): \(context.package.displayName) has no executable product \(value) (\(list)); a path to an executable, with a /, is taken as it is"
            )
        }
        return try build(value)
    }

    /// The product `name`, built (debug); the path of its `file` (an executable's is its name).
    func build(_ name: String, file: String? = nil) throws -> String {
        let result = try packageManager.build(.product(name), parameters: .init(configuration: .debug, logging: .concise))
        guard result.succeeded else {
            throw RunWayPluginError("building \(name) failed:\n\(result.logText)")
        }
        let file = file ?? name
        guard let built = result.builtArtifacts.first(where: { $0.url.lastPathComponent == file }) else {
            throw RunWayPluginError("building \(name) produced no \(file)")
        }
        return built.url.path
    }

    /// The directory of the simulator's binaries, built in your package's build (debug) unless every one is
    /// there and newer than RunWay Pair's sources.
    func binaries(_ context: PluginContext, _ simulatorPackage: Package, quiet: Bool) throws -> URL {
        let newest = Self.newestModification(under: simulatorPackage.directoryURL)
        if let bin = Self.debugDirectory(context.pluginWorkDirectoryURL),
            Self.simulator.allSatisfy({ Self.modification(bin.appendingPathComponent($0.1)).map { $0 >= newest } ?? false })
        {
            return bin
        }
        var bin: URL?
        let started = Date()
        for (index, (product, file)) in Self.simulator.enumerated() {
            let begun = Date()
            let path = URL(fileURLWithPath: try build(product, file: file))
            bin = path.deletingLastPathComponent()
            if !quiet {
                Self.say("runway plugin: [\(index + 1)/\(Self.simulator.count)] \(product) built (\(Self.seconds(Date().timeIntervalSince(begun))) s)")
            }
        }
        guard let bin else { throw RunWayPluginError("no simulator product to build") }
        if !quiet { Self.say("runway plugin: the simulator's binaries are in \(bin.path) (built in \(Self.seconds(Date().timeIntervalSince(started))) s)") }
        return bin
    }

    /// RunWay Pair among your package's dependencies (or your package itself): the one whose products
    /// include phone-os and runway.
    static func simulatorPackage(_ root: Package) throws -> Package {
        var queue = [root]
        var seen: Set<String> = []
        while !queue.isEmpty {
            let package = queue.removeFirst()
            guard seen.insert(package.id).inserted else { continue }
            let names = Set(package.products.map(\.name))
            if names.isSuperset(of: ["phone-os", "runway"]) { return package }
            queue += package.dependencies.map(\.package)
        }
        throw RunWayPluginError("no package with the products phone-os and runway among \(root.displayName)'s dependencies")
    }

    /// `SCRATCH/debug` of the build the command runs for (SCRATCH holds `workspace-state.json`, above the
    /// plugin's work directory), resolved; nil before any build.
    static func debugDirectory(_ work: URL) -> URL? {
        var directory = work
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("workspace-state.json").path) {
                let debug = directory.appendingPathComponent("debug").resolvingSymlinksInPath()
                return FileManager.default.fileExists(atPath: debug.path) ? debug : nil
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// The newest modification time of `Package.swift` and everything under `Sources`.
    static func newestModification(under root: URL) -> Double {
        var newest = modification(root.appendingPathComponent("Package.swift")) ?? 0
        if let walk = FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: [.contentModificationDateKey]) {
            for case let url as URL in walk { newest = max(newest, modification(url) ?? 0) }
        }
        return newest
    }

    static func modification(_ url: URL) -> Double? {
        (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate?.timeIntervalSince1970
    }

    static func say(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    static func seconds(_ value: Double) -> String { String(Double(Int(value * 10)) / 10) }
}

struct RunWayPluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
