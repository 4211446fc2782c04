import Foundation
import Testing

/// Every public type of every library product is one an app can name with nothing but `import PRODUCT`,
/// under the upcoming feature `MemberImportVisibility` (a member is visible only when the module that
/// declares it is imported) — in Swift 5 and Swift 6 modes. The names come from the checked-in listing
/// (`api/PRODUCT.txt`, which `scripts/api --check` keeps equal to the built modules): a file per product
/// names each of its types (`extension WCError.Code {}`), each case of its enums (`let _: WCError.Code =
/// .notReachable`) and each static property (`_ = WCError.notReachable`), and the compiler typechecks it
/// against the built modules, as a user's package would. A type added later is in the listing, so in
/// the file: none slips by — also one a product nests in the toolchain's types (`DispatchQueue.
/// SchedulerTimeType.Stride`, `Timer.TimerPublisher`), named with Foundation imported beside the product.
///
/// And the listing itself: every type a product's declarations mention is declared in a product, in
/// the toolchain, or re-exported by name by that product (scripts/api lists it beside its own).
@Suite struct ProductSurfaceTests {
    static let root = ImportRulesTests.root
    static let modules = APIListingTests.modules

    /// The library products' modules, from the manifest.
    static func productModules() throws -> [String] {
        let json = try #require(try JSONSerialization.jsonObject(with: try ImportRulesTests.dumpPackage()) as? [String: Any])
        let libraries = (json["products"] as? [[String: Any]] ?? []).filter { ($0["type"] as? [String: Any])?["library"] != nil }
        return Array(Set(libraries.flatMap { $0["targets"] as? [String] ?? [] })).sorted()
    }

    // MARK: - The listing, read

    /// One declaration of the listing that a file can name.
    struct Name: Equatable {
        enum Kind: Equatable { case type, alias, enumCase(payload: Bool), staticProperty }
        var kind: Kind
        /// `WCError.Code.notReachable`: the enclosing types, then the name.
        var path: [String]
        /// Nested in the toolchain's type (`DispatchQueue.SchedulerTimeType`): the file imports Foundation
        /// too, as a user's does to name `DispatchQueue` (Apple's Combine does not re-export it either).
        var inToolchainType = false
    }

    /// A scope the listing opens with `{`: a type (its name, whether it is generic or a protocol) or an
    /// extension of one.
    struct Scope {
        var path: [String]
        var isGeneric: Bool
        var isProtocol: Bool
        var isEnum: Bool
        var inToolchainType = false
    }

    static let typeKeywords = ["struct", "class", "enum", "protocol", "actor"]

    /// The standard library's generic types and protocols a listing may extend: naming a member through
    /// them needs a type argument.
    static let foreignGenerics: Set<String> = [
        "Array", "ArraySlice", "Dictionary", "Set", "Optional", "Result", "Sequence", "Collection", "RandomAccessCollection", "AsyncSequence",
        "Equatable", "Hashable", "Comparable", "Encodable", "Decodable", "Error", "RawRepresentable",
    ]

    /// The names `listing` declares, for a file that imports `module`. Declarations marked unavailable
    /// are left out (naming one is an error by design), and so are the members of generic types and
    /// protocols (naming them needs a type argument): their types are still named.
    static func names(in listing: String, module: String) -> [Name] {
        let lines = listing.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        // First the types declared at the top, with whether naming their members needs a type argument.
        var topLevel: [String: Bool] = [:]
        for line in lines {
            let words = line.split(separator: " ").map(String.init)
            guard let index = typeKeyword(words) else { continue }
            let declared = words[index + 1]
            topLevel[identifier(declared), default: false] = declared.contains("<") || words[index] == "protocol"
        }
        var names: [Name] = []
        var scopes: [Scope?] = []
        var previous = ""
        // (What follows "In the Swift 6 language mode" is a diff of the listing, not declarations.)
        for line in lines.prefix(while: { !$0.hasPrefix("// In the Swift 6 language mode") }) {
            defer { previous = line }
            if line == "}" {
                _ = scopes.popLast()
                continue
            }
            if line.isEmpty || line.hasPrefix("//") || line.hasPrefix("import ") { continue }
            let unavailable = line.contains("unavailable") || previous.hasPrefix("@available") && previous.contains("unavailable")
            let words = line.split(separator: " ").map(String.init)
            let atTop = scopes.isEmpty
            let enclosing = scopes.last.flatMap { $0 }
            let inGeneric = scopes.contains { $0?.isGeneric == true || $0?.isProtocol == true }
            let opens = line.hasSuffix("{")
            if let index = typeKeyword(words) {
                let declared = words[index + 1]
                let name = identifier(declared)
                let path = (enclosing?.path ?? []) + [name]
                let inToolchainType = enclosing?.inToolchainType ?? false
                if !unavailable && !name.hasPrefix("_") && (atTop || enclosing != nil) {
                    names.append(Name(kind: .type, path: path, inToolchainType: inToolchainType))
                }
                if opens {
                    scopes.append(
                        atTop || enclosing != nil
                            ? Scope(
                                path: path, isGeneric: declared.contains("<"), isProtocol: words[index] == "protocol", isEnum: words[index] == "enum",
                                inToolchainType: inToolchainType)
                            : nil)
                }
                continue
            }
            if let index = words.firstIndex(of: "extension"), index + 1 < words.count {
                var path = words[index + 1].split(separator: ".").map(String.init)
                if path.count > 1 && path[0] == module { path.removeFirst() }
                if let outer = path.first, let generic = topLevel[outer] {
                    scopes.append(Scope(path: path, isGeneric: generic, isProtocol: false, isEnum: false))
                } else if path.count == 1, let outer = path.first, !outer.hasPrefix("_"), !foreignGenerics.contains(outer) {
                    // An extension of the toolchain's type (`DispatchQueue`, `Timer`): what it nests is this
                    // module's (`DispatchQueue.SchedulerTimeType`, `Timer.TimerPublisher`), named through it.
                    scopes.append(Scope(path: path, isGeneric: false, isProtocol: false, isEnum: false, inToolchainType: true))
                } else {
                    // Another product's type (`Combine.Publisher`), a generic or a protocol of the standard
                    // library's (`Array`, `Sequence`): nothing of this module's is named through it.
                    scopes.append(nil)
                }
                continue
            }
            if opens {
                // Any other block (a property with accessors on several lines): no scope of a type.
                scopes.append(nil)
                continue
            }
            if let index = words.firstIndex(of: "typealias"), index + 1 < words.count, !unavailable, atTop || (enclosing != nil && !inGeneric) {
                names.append(
                    Name(kind: .alias, path: (enclosing?.path ?? []) + [identifier(words[index + 1])], inToolchainType: enclosing?.inToolchainType ?? false))
                continue
            }
            guard let enclosing, !inGeneric, !unavailable else { continue }
            if let index = words.firstIndex(of: "case"), index + 1 < words.count, enclosing.isEnum || words[..<index].allSatisfy({ $0 == "indirect" }) {
                let declared = words[index + 1]
                names.append(
                    Name(
                        kind: .enumCase(payload: declared.contains("(")), path: enclosing.path + [identifier(declared)],
                        inToolchainType: enclosing.inToolchainType))
                continue
            }
            if let index = words.firstIndex(where: { $0 == "let" || $0 == "var" }), words[..<index].contains("static"),
                words[..<index].contains("public") || words[..<index].contains("open"), index + 1 < words.count
            {
                let name = String(words[index + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "`" })
                names.append(Name(kind: .staticProperty, path: enclosing.path + [name], inToolchainType: enclosing.inToolchainType))
            }
        }
        return names
    }

    /// Where the type keyword of a type's declaration is (`final public class X`), if the line is one.
    static func typeKeyword(_ words: [String]) -> Int? {
        guard let index = words.firstIndex(where: { typeKeywords.contains($0) }), index + 1 < words.count,
            !["func", "var", "let", "subscript"].contains(words[index + 1]),
            words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "open", "final", "indirect"].contains($0) })
        else { return nil }
        return index
    }

    /// The name at the start of `word` (`Map<Upstream,` is `Map`).
    static func identifier(_ word: String) -> String { String(word.prefix { $0.isLetter || $0.isNumber || $0 == "_" }) }

    /// A file that imports only `module` and names each of `names`.
    static func file(importing module: String, naming names: [Name]) -> String {
        var extensions = ""
        var body = ""
        for name in names {
            let path = name.path.joined(separator: ".")
            switch name.kind {
            case .type: extensions += "extension \(path) {}\n"
            case .alias: body += "    _ = \(path).self\n"
            case .enumCase(payload: false): body += "    let _: \(name.path.dropLast().joined(separator: ".")) = .\(name.path.last!)\n"
            case .enumCase(payload: true), .staticProperty: body += "    _ = \(path)\n"
            }
        }
        let identifier = module.filter { $0.isLetter || $0.isNumber }
        let foundation = names.contains { $0.inToolchainType } && module != "Foundation" ? "import Foundation\n" : ""
        return "import \(module)\n\(foundation)\n\(extensions)\n@MainActor func nameEverything\(identifier)() {\n\(body)}\n"
    }

    // MARK: - The compiler

    /// `swiftc -typecheck` of `files` against the built modules, in `mode` with MemberImportVisibility.
    static func typecheck(_ files: [String], mode: Int) throws -> (status: Int32, output: String) {
        var arguments = ["swiftc", "-typecheck", "-swift-version", "\(mode)", "-enable-upcoming-feature", "MemberImportVisibility", "-I", modules]
        let sources = root.appendingPathComponent("Sources")
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        where FileManager.default.fileExists(atPath: sources.appendingPathComponent(target).appendingPathComponent("module.modulemap").path) {
            arguments += ["-I", sources.appendingPathComponent(target).path]
        }
        let (status, data) = try Process.toolchain(arguments + files).runToEnd(capturing: [.output, .error])
        return (status, String(decoding: data, as: UTF8.self))
    }

    static func scratch(_ tag: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runway-surface-\(tag)-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    // MARK: - Tests

    @Test(arguments: [5, 6]) func everyPublicTypeOfEveryProductIsNamedWithItsProductAlone(mode: Int) throws {
        let products = try Self.productModules()
        #expect(products.contains("WatchConnectivity") && products.contains("HealthKit"), "\(products)")
        let directory = try Self.scratch("names\(mode)")
        // Kept when the check fails, to read (the path is in the failure).
        var passed = false
        defer { if passed { try? FileManager.default.removeItem(at: directory) } }
        var files: [String] = []
        var counts: [String: Int] = [:]
        for module in products {
            let listing = try String(contentsOf: Self.root.appendingPathComponent("api/\(module).txt"), encoding: .utf8)
            let names = Self.names(in: listing, module: module)
            counts[module] = names.count
            let file = directory.appendingPathComponent("Names\(module).swift")
            try Self.file(importing: module, naming: names).write(to: file, atomically: true, encoding: .utf8)
            files.append(file.path)
        }
        // The types themselves are there (a parser that read nothing would pass vacuously).
        let watchConnectivity = try String(contentsOfFile: directory.appendingPathComponent("NamesWatchConnectivity.swift").path, encoding: .utf8)
        #expect(watchConnectivity.contains("let _: WCError.Code = .notReachable"))
        #expect(watchConnectivity.contains("extension WCSession {}"))
        // And what a product nests in the toolchain's types.
        let combine = try String(contentsOfFile: directory.appendingPathComponent("NamesCombine.swift").path, encoding: .utf8)
        for nested in ["DispatchQueue.SchedulerTimeType.Stride", "RunLoop.SchedulerOptions", "Timer.TimerPublisher", "NotificationCenter.Publisher"] {
            #expect(combine.contains("extension \(nested) {}"), "\(nested)")
        }
        #expect((counts["HealthKit"] ?? 0) > 50 && (counts["UserNotifications"] ?? 0) > 20, "\(counts)")
        let result = try Self.typecheck(files, mode: mode)
        #expect(result.status == 0, "a product's own name does not resolve with only its import (\(directory.path)):\n\(result.output)")
        passed = result.status == 0
        print("ProductSurfaceTests: Swift \(mode), MemberImportVisibility: \(counts.values.reduce(0, +)) names of \(products.count) products typecheck")
    }

    /// What the check catches: a type whose cases are declared in a module the user does not import
    /// (as `WCError.Code` was, a type alias of the engine's `Connectivity.WCErrorCode`).
    @Test func aMemberDeclaredOutsideTheProductFailsTheCheck() throws {
        let directory = try Self.scratch("outside")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A product `Shop` whose `Order.Status` is its engine's type: the shape WCError.Code had.
        try "public enum StatusCode: Int { case open = 1, closed }\n".write(
            to: directory.appendingPathComponent("Engine.swift"), atomically: true, encoding: .utf8)
        try "import Engine\npublic struct Order { public typealias Status = StatusCode; public init() {}; public var status: Status { .open } }\n"
            .write(to: directory.appendingPathComponent("Shop.swift"), atomically: true, encoding: .utf8)
        for module in ["Engine", "Shop"] {
            let process = Process.toolchain([
                "swiftc", "-emit-module", "-module-name", module, "-I", directory.path, "-emit-module-path",
                directory.appendingPathComponent("\(module).swiftmodule").path, directory.appendingPathComponent("\(module).swift").path,
            ])
            let built = try process.runToEnd(capturing: [.output, .error])
            #expect(built.status == 0, "\(String(decoding: built.data, as: UTF8.self))")
        }
        let listing = "public struct Order {\n\n    public typealias Status = Engine.StatusCode\n}\n"
        let names = Self.names(in: listing, module: "Shop")
        #expect(names == [Name(kind: .type, path: ["Order"]), Name(kind: .alias, path: ["Order", "Status"])])
        let user = directory.appendingPathComponent("User.swift")
        try "import Shop\nfunc f() { switch Order().status { case .open: break; default: break } }\n".write(to: user, atomically: true, encoding: .utf8)
        let (status, output) = try Process.toolchain([
            "swiftc", "-typecheck", "-swift-version", "6", "-enable-upcoming-feature", "MemberImportVisibility", "-I", directory.path, user.path,
        ]).runToEnd(capturing: [.output, .error])
        let text = String(decoding: output, as: UTF8.self)
        #expect(status != 0)
        #expect(text.contains("enum case 'open' is not available due to missing import of defining module 'Engine'"), "\(text)")
    }

    /// `UIApplication` and its members are `@MainActor`, as in the SDK: a nonisolated read of
    /// `UIApplication.shared.applicationState` (a session delegate's callback asking whether it is on screen)
    /// does not compile in Swift 6 mode — for the isolation reason — as it does not in Xcode; the same read
    /// on the main actor does. (In Swift 5 mode it compiles, as in Xcode without strict concurrency.)
    @Test func aNonisolatedApplicationStateReadDoesNotCompileInSwift6() throws {
        let directory = try Self.scratch("isolation")
        defer { try? FileManager.default.removeItem(at: directory) }
        let nonisolated = directory.appendingPathComponent("Nonisolated.swift")
        // (The import is spliced in: ImportRulesTests reads this file's lines for its imports.)
        let importUIKit = ["import", "UIKit"].joined(separator: " ")
        try """
        \(importUIKit)

        final class ScreenCheck {
            func isOnScreen() -> Bool { UIApplication.shared.applicationState == .active }
        }
        """.write(to: nonisolated, atomically: true, encoding: .utf8)
        let refused = try Self.typecheck([nonisolated.path], mode: 6)
        #expect(refused.status != 0)
        #expect(
            refused.output.contains("main actor-isolated class property 'shared' can not be referenced from a nonisolated context"), "\(refused.output)")
        #expect(refused.output.contains("main actor-isolated property 'applicationState' can not be referenced from a nonisolated context"))
        let swift5 = try Self.typecheck([nonisolated.path], mode: 5)
        #expect(swift5.status == 0, "Swift 5 mode compiles it, as Xcode does (Objective-C's isolation is not enforced there): \(swift5.output)")
        let isolated = directory.appendingPathComponent("Isolated.swift")
        try """
        \(importUIKit)

        @MainActor final class ScreenCheck {
            func isOnScreen() -> Bool { UIApplication.shared.applicationState == .active }
        }
        func observed() -> [Notification.Name] { [UIApplication.didBecomeActiveNotification, UIApplication.didEnterBackgroundNotification] }
        """.write(to: isolated, atomically: true, encoding: .utf8)
        let accepted = try Self.typecheck([isolated.path], mode: 6)
        #expect(accepted.status == 0, "on the main actor it compiles, and the notification names are nonisolated: \(accepted.output)")
    }

    /// Apple's mirroring sample's two apps as written here (`Sources/mirroring-phone`, `mirroring-watch`: the
    /// sample's `WorkoutManager` in its idioms, HealthKit's async forms, `os.Logger`, Combine) compile as they
    /// are in both language modes with `MemberImportVisibility` on, each app's files importing only Apple's
    /// names (`MirroringSampleTests` runs them hosted).
    @Test(arguments: [5, 6]) func theMirroringSamplesAppsCompileInBothModes(mode: Int) throws {
        for app in ["mirroring-phone", "mirroring-watch"] {
            let directory = Self.root.appendingPathComponent("Sources/\(app)")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted()
            #expect(files.contains("main.swift") && files.contains("WorkoutManager.swift"), "\(files)")
            let result = try Self.typecheck(files.map { directory.appendingPathComponent($0).path }, mode: mode)
            #expect(result.status == 0, "\(app) in Swift \(mode) mode:\n\(result.output)")
        }
    }

    /// An operator of Apple's Combine that is not in the subset is declared unavailable: the compiler's
    /// error says so and names the page that lists what is, rather than "has no member".
    @Test func aMissingCombineOperatorSaysWhereToRead() throws {
        let directory = try Self.scratch("combine")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Missing.swift")
        let importCombine = ["import", "Combine"].joined(separator: " ")
        try """
        \(importCombine)

        func pipeline(_ a: PassthroughSubject<Int, Never>, _ b: PassthroughSubject<Int, Never>) {
            _ = a.zip(b)
            _ = a.flatMap { _ in b }
        }
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try Self.typecheck([file.path], mode: 6)
        #expect(result.status != 0)
        for name in ["zip", "flatMap"] {
            #expect(
                result.output.contains(
                    "is unavailable: \(name) is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"),
                "\(result.output)")
        }
    }

    /// Every type a product's listing mentions (`Module.Type`) is a product's, the toolchain's, or declared
    /// in the same listing (re-exported by name, as WatchConnectivity re-exports `PropertyListValue`).
    @Test func aProductsDeclarationsMentionOnlyTypesItsUsersCanName() throws {
        let products = try Self.productModules()
        let toolchain: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "Dispatch", "Glibc", "_Concurrency", "KeyValueObserving"]
        let qualified = try NSRegularExpression(pattern: #"\b([A-Z][A-Za-z]*|os)\.([A-Z][A-Za-z0-9_]*)"#)
        for module in products {
            let listing = try String(contentsOf: Self.root.appendingPathComponent("api/\(module).txt"), encoding: .utf8)
            let declared = Set(Self.names(in: listing, module: module).filter { $0.kind == .type }.compactMap(\.path.first))
            for line in listing.split(separator: "\n") where !line.hasPrefix("import ") && !line.hasPrefix("//") {
                let text = String(line)
                for match in qualified.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let owner = (text as NSString).substring(with: match.range(at: 1))
                    let name = (text as NSString).substring(with: match.range(at: 2))
                    guard !products.contains(owner), !toolchain.contains(owner) else { continue }
                    // `WCError.Code` is a nested name, not a module's: only modules of this package count.
                    guard FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Sources/\(owner)").path) else { continue }
                    #expect(declared.contains(name), "\(module)'s API mentions \(owner).\(name), which \(owner) declares and no product does: \(text)")
                }
            }
        }
    }
}
