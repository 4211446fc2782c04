import Foundation
import PackagePlugin

/// `swift package --disable-sandbox runway ARGUMENTS…`: the `runway` command line for a package that
/// depends on RunWay Pair. It builds the simulator's binaries (phone-os, watch-agent, runway…) from the
/// RunWay Pair your package depends on into `.build/runway-pair` (where `DevicePair` builds them too, never
/// in SwiftPM's checkout), builds the executables of your package that `--phone-app NAME` or
/// `--watch-app NAME` name by product, puts their paths in those arguments, and runs `runway` with the rest
/// unchanged: `swift package --disable-sandbox runway up --phone-app PhoneApp`.
@main struct RunWayCommand: CommandPlugin {
    static let appOptions = ["--phone-app", "--watch-app"]

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let simulator = try Self.simulatorPackage(context.package)
        let bin = try Self.buildSimulator(simulator.directoryURL, scratch: Self.scratchPath(context.pluginWorkDirectoryURL))
        let products = Set(context.package.products.compactMap { ($0 as? ExecutableProduct)?.name })
        var mapped: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if Self.appOptions.contains(argument), index < arguments.count, products.contains(arguments[index]) {
                mapped += [argument, try build(arguments[index])]
                index += 1
            } else if let option = Self.appOptions.first(where: { argument.hasPrefix($0 + "=") }),
                products.contains(String(argument.dropFirst(option.count + 1)))
            {
                mapped.append(option + "=" + (try build(String(argument.dropFirst(option.count + 1)))))
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
        if runway.terminationStatus != 0 { exit(runway.terminationStatus) }
    }

    /// Your executable product `name`, built (debug); its path.
    func build(_ name: String) throws -> String {
        let result = try packageManager.build(.product(name), parameters: .init(configuration: .debug, logging: .concise))
        guard result.succeeded else {
            throw RunWayPluginError("building \(name) failed:\n\(result.logText)")
        }
        guard let built = result.builtArtifacts.first(where: { $0.kind == .executable && $0.url.lastPathComponent == name }) else {
            throw RunWayPluginError("building \(name) produced no executable named \(name)")
        }
        return built.url.path
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

    /// `.build/runway-pair` in the package the command runs for (the nearest `.build` above the plugin's
    /// work directory), as `DevicePair` picks it.
    static func scratchPath(_ work: URL) -> URL {
        var directory = work
        while directory.path != "/" {
            if directory.lastPathComponent == ".build" { return directory.appendingPathComponent("runway-pair") }
            directory = directory.deletingLastPathComponent()
        }
        return work.appendingPathComponent("runway-pair")
    }

    /// `swift build` of the simulator into `scratch` (a null build after the first); its bin directory.
    static func buildSimulator(_ package: URL, scratch: URL) throws -> URL {
        FileHandle.standardError.write(Data("runway plugin: building the simulator's binaries from \(package.path) into \(scratch.path)\n".utf8))
        let swift = Process()
        swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        swift.arguments = ["swift", "build", "--package-path", package.path, "--scratch-path", scratch.path]
        let log = scratch.path + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = FileHandle(forWritingAtPath: log)
        swift.standardOutput = output
        swift.standardError = output
        try swift.run()
        swift.waitUntilExit()
        try? output?.close()
        guard swift.terminationStatus == 0 else { throw RunWayPluginError("swift build of the simulator failed: see \(log)") }
        return scratch.appendingPathComponent("debug")
    }
}

struct RunWayPluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
