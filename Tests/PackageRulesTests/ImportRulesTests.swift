import Foundation
import Testing

/// The package's layering, checked against the code itself: every target's declared dependencies are
/// exactly the package modules its files import (no hidden dependency, no stale one), the RunWay apps
/// use only the public APIs (`WatchConnectivity`, `UserNotifications`) and never the device's internals,
/// and nothing that runs a device imports an app. The targets and their declared dependencies come
/// from `swift package dump-package`, so the rules read the same `Package.swift` that builds.
@Suite struct ImportRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Target {
        var name: String
        var isTest: Bool
        var dependencies: Set<String>
    }

    /// `swift package dump-package`: the manifest as SwiftPM reads it, in JSON.
    static func dumpPackage() throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // A scratch path of its own: `swift test` holds the lock on the package's `.build`.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("runway-rules-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        process.arguments = ["swift", "package", "--package-path", root.path, "--scratch-path", scratch, "dump-package"]
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (environment["PATH"] ?? "") + ":/opt/swift/usr/bin"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// The package's targets, as SwiftPM reads `Package.swift`.
    static func targets() throws -> [Target] {
        let json = try #require(try JSONSerialization.jsonObject(with: try dumpPackage()) as? [String: Any])
        return (json["targets"] as? [[String: Any]] ?? []).map { target in
            var dependencies: Set<String> = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                for value in dependency.values {
                    if let name = (value as? [Any])?.first as? String { dependencies.insert(name) }
                }
            }
            return Target(name: target["name"] as? String ?? "", isTest: target["type"] as? String == "test", dependencies: dependencies)
        }
    }

    /// The Clang modules the system-library targets declare under another name than their own (COSLog
    /// declares `os`, whose Swift overlay is the target `os`), by module name.
    static let clangModules: [String: String] = {
        var found: [String: String] = [:]
        let sources = root.appendingPathComponent("Sources")
        for target in (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? [] {
            let map = sources.appendingPathComponent(target).appendingPathComponent("module.modulemap").path
            guard let text = try? String(contentsOfFile: map, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("module ") {
                let name = String(line.split(separator: " ")[1])
                if name != target { found[name] = target }
            }
        }
        return found
    }()

    /// The package modules `target`'s files import.
    static func imports(of target: Target, among modules: Set<String>) -> Set<String> {
        let directory = root.appendingPathComponent(target.isTest ? "Tests" : "Sources").appendingPathComponent(target.name)
        var found: Set<String> = []
        let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = (try? String(contentsOfFile: directory.appendingPathComponent(file).path, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                // `import X`, `@testable import X`, `@_exported import X` (the harness re-exports the checker),
                // `@_spi(RunWayPair) import X` (the key-value observing an Apple-named module drives).
                let attributed = words.first == "@testable" || words.first == "@_exported" || words.first?.hasPrefix("@_spi(") == true
                let module: Substring? =
                    words.first == "import"
                    ? words.dropFirst().first : attributed && words.dropFirst().first == "import" ? words.dropFirst(2).first : nil
                guard let module = module.map(String.init) else { continue }
                // An overlay importing its own name imports the Clang module under it (`os`: COSLog's).
                if module == target.name, let library = clangModules[module] {
                    found.insert(library)
                } else if modules.contains(module) {
                    found.insert(module)
                }
            }
        }
        return found
    }

    @Test func everyTargetDeclaresExactlyWhatItImports() throws {
        let targets = try Self.targets()
        #expect(targets.count > 20, "swift package dump-package read no targets")
        let modules = Set(targets.map(\.name))
        for target in targets {
            let imported = Self.imports(of: target, among: modules)
            #expect(
                imported.subtracting(target.dependencies).isEmpty,
                "\(target.name) imports \(imported.subtracting(target.dependencies).sorted()) without declaring them")
            #expect(
                target.dependencies.subtracting(imported).isEmpty,
                "\(target.name) declares \(target.dependencies.subtracting(imported).sorted()) but imports none of it")
        }
    }

    @Test func theAppsUseOnlyThePublicAPIsAndNoDeviceImportsAnApp() throws {
        let targets = try Self.targets()
        let modules = Set(targets.map(\.name))
        func imports(_ name: String) throws -> Set<String> {
            Self.imports(of: try #require(targets.first { $0.name == name }), among: modules)
        }
        let deviceInternals: Set<String> = ["Connectivity", "ConnectivityTesting", "AppHost", "OSServices", "OSProcess", "RunWayDevices"]
        let app = try imports("RunWayApp")
        #expect(app.isDisjoint(with: deviceInternals), "RunWayApp imports \(app.intersection(deviceInternals).sorted())")
        #expect(app.isSuperset(of: ["WatchConnectivity", "UserNotifications"]))
        for device in ["AppHost", "OSServices", "OSProcess", "Connectivity", "WatchConnectivity", "UserNotifications"] {
            #expect(!(try imports(device)).contains("RunWayApp"), "\(device) imports the app")
        }
    }

    /// SwiftPM refuses a dependency taken by version whose targets carry unsafe flags: with one, no user's
    /// `.package(url:from:)` could build a product.
    @Test func theManifestHasNoUnsafeFlags() throws {
        let json = try #require(String(data: try Self.dumpPackage(), encoding: .utf8))
        #expect(json.contains("\"targets\""), "swift package dump-package read nothing")
        #expect(!json.contains("unsafeFlags"), "a target in Package.swift has unsafeFlags")
    }

    /// The package's modules a library product compiles (its targets and everything they depend on, the
    /// system-library targets left out: they are module maps, nothing to compile), by product.
    static func productClosures() throws -> [String: Set<String>] {
        let json = try #require(try JSONSerialization.jsonObject(with: try Self.dumpPackage()) as? [String: Any])
        var targets: [String: Set<String>] = [:]
        var systemLibraries: Set<String> = []
        for target in json["targets"] as? [[String: Any]] ?? [] {
            let name = target["name"] as? String ?? ""
            if target["type"] as? String == "system" { systemLibraries.insert(name) }
        }
        for target in try Self.targets() { targets[target.name] = target.dependencies }
        var closures: [String: Set<String>] = [:]
        for product in json["products"] as? [[String: Any]] ?? [] where (product["type"] as? [String: Any])?["library"] != nil {
            var closure: Set<String> = []
            var queue = product["targets"] as? [String] ?? []
            while let next = queue.popLast() {
                guard closure.insert(next).inserted else { continue }
                queue += targets[next] ?? []
            }
            closures[product["name"] as? String ?? "?"] = closure.subtracting(systemLibraries)
        }
        return closures
    }

    /// docs/performance.md's table "What each product compiles": a row per library product, its second
    /// column `N: A, B, …`.
    static func documentedClosures() throws -> [String: (count: Int, modules: Set<String>)] {
        let page = try String(contentsOf: root.appendingPathComponent("docs/performance.md"), encoding: .utf8)
        let section = try #require(page.components(separatedBy: "### What each product compiles").dropFirst().first, "no section")
        var rows: [String: (count: Int, modules: Set<String>)] = [:]
        // The section's first table: its rows, up to the first line after them that is not one.
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("|") }
        for line in lines.prefix(while: { $0.hasPrefix("|") }) where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let colon = cells[1].firstIndex(of: ":"), let count = Int(cells[1][..<colon]) else { continue }
            let product = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let modules = cells[1][cells[1].index(after: colon)...].split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " `"))
            }
            rows[product] = (count, Set(modules))
        }
        return rows
    }

    /// Issue 52: what each library product compiles is written down (docs/performance.md, "What each
    /// product compiles", with why) and is exactly that: a dependency a product gains — a module it
    /// compiles and does not use, such as AppHost and the ten beneath it for WidgetKit, which tells the
    /// OS a line — fails here until the page says it and why. `scripts/consumer-cost` checks the same
    /// rows against what a real consumer's clean build compiled.
    @Test func everyLibraryProductCompilesWhatThePerformancePageLists() throws {
        let closures = try Self.productClosures()
        let documented = try Self.documentedClosures()
        #expect(closures.count >= 10, "dump-package listed \(closures.count) library products")
        for (product, closure) in closures.sorted(by: { $0.key < $1.key }) {
            guard let row = documented[product] else {
                Issue.record("docs/performance.md's table has no row for \(product), which compiles \(closure.count): \(closure.sorted())")
                continue
            }
            #expect(
                closure == row.modules && row.count == row.modules.count,
                """
                \(product) compiles \(closure.count) modules, docs/performance.md's table says \(row.count): \
                more than it says \(closure.subtracting(row.modules).sorted()), fewer \(row.modules.subtracting(closure).sorted())
                """)
        }
        for product in Set(documented.keys).subtracting(closures.keys).sorted() { Issue.record("docs/performance.md lists \(product), no library product") }
    }

    /// What a user's package compiles for a library product: its targets and everything they depend on —
    /// never the CLI, its views, the daemons' compositions, RunWay's own apps (the harness reads their stores
    /// through RunWayDomain: issue 52 took RunWayApp, and with it three product modules' worth, out of
    /// RunWayPairTesting), the OSes or the test-only session link.
    @Test func aLibraryProductCompilesNothingItDoesNotUse() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: try Self.dumpPackage()) as? [String: Any])
        let targets = Dictionary(uniqueKeysWithValues: try Self.targets().map { ($0.name, $0.dependencies) })
        let libraries = (json["products"] as? [[String: Any]] ?? []).filter { ($0["type"] as? [String: Any])?["library"] != nil }
        #expect(libraries.count >= 4, "dump-package listed \(libraries.count) library products")
        let unused: Set<String> = [
            "RunWayCLI", "TerminalViews", "RunWayDevices", "Devices", "RunWayApp", "OSProcess", "ConnectivityTesting", "runway-bench", "runway",
        ]
        for product in libraries {
            var closure: Set<String> = []
            var queue = product["targets"] as? [String] ?? []
            while let next = queue.popLast() {
                guard closure.insert(next).inserted else { continue }
                queue += targets[next] ?? []
            }
            #expect(closure.isDisjoint(with: unused), "\(product["name"] ?? "?") compiles \(closure.intersection(unused).sorted())")
        }
    }
}
