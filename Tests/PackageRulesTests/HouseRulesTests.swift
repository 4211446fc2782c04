import Foundation
import Testing

/// The rules the house keeps (issue 53, item 6), read from the code itself, each naming the file and line
/// that breaks it:
///
/// - **One funnel for the system.** No module but `Posix` reads `errno`, calls `recv`, `pread`, `link` or
///   `rename` itself, imports `Glibc`, or names a call only Linux has (`signalfd`, `inotify`, `eventfd`,
///   `/proc`, `SO_PEERCRED`, …): `Posix` re-exports the C library and wraps the rest, so that a port to
///   another system is one module's work (`Sources/Posix/Platform.swift` lists what it replaces).
/// - **A store's tables are read by their owner.** No `SELECT` on a table outside the module whose code
///   creates it — the CLI and the harness read through the owner's read-only readers — except the
///   invariant checker (`PairInvariants`), on purpose: it must not trust the code it checks, so it reads
///   the stores with its own queries.
/// - **`public` only in a product.** A module that is not a library product declares `package`, not
///   `public` — but for what a product re-exports (every Apple-named module re-exports
///   `KeyValueObserving`; `WatchConnectivity` re-exports `PropertyListValue` by name): only what a user's
///   package can name is public.
@Suite struct HouseRulesTests {
    static let sources = ImportRulesTests.root.appendingPathComponent("Sources")

    /// One line of a source file: where it is, and its code with comments and string literals blanked
    /// (`code`), or with only its comments blanked (`text`: SQL and paths live in strings).
    struct Line {
        var module: String
        var file: String
        var number: Int
        var code: String
        var text: String
        var place: String { "\(file):\(number)" }
    }

    /// Every Swift line under `Sources`, module by module.
    static func lines() throws -> [Line] {
        var result: [Line] = []
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        for module in modules {
            let directory = sources.appendingPathComponent(module)
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: directory.appendingPathComponent(file).path, encoding: .utf8)
                let (code, withStrings) = blank(text)
                for (index, (line, textLine)) in zip(code, withStrings).enumerated() {
                    result.append(Line(module: module, file: "Sources/\(module)/\(file)", number: index + 1, code: line, text: textLine))
                }
            }
        }
        #expect(result.count > 10_000, "read \(result.count) lines of Sources")
        return result
    }

    /// The file's lines twice: comments and string literals blanked, and comments only blanked. A
    /// small scanner (line and block comments, `"…"` and `"""…"""` with escapes and interpolations), enough for this code base's Swift.
    static func blank(_ source: String) -> (code: [String], text: [String]) {
        var code = "", text = ""
        let characters = Array(source)
        var index = 0
        func at(_ offset: Int, _ string: String) -> Bool {
            let wanted = Array(string)
            guard index + offset + wanted.count <= characters.count else { return false }
            return Array(characters[(index + offset)..<(index + offset + wanted.count)]) == wanted
        }
        func keep(_ character: Character, inCode: Bool, inText: Bool) {
            code.append(character == "\n" ? "\n" : inCode ? character : " ")
            text.append(character == "\n" ? "\n" : inText ? character : " ")
        }
        while index < characters.count {
            if at(0, "//") {
                while index < characters.count, characters[index] != "\n" {
                    keep(characters[index], inCode: false, inText: false)
                    index += 1
                }
            } else if at(0, "/*") {
                var depth = 0
                repeat {
                    if at(0, "/*") { depth += 1 } else if at(0, "*/") { depth -= 1 }
                    let step = at(0, "/*") || at(0, "*/") ? 2 : 1
                    for _ in 0..<step where index < characters.count {
                        keep(characters[index], inCode: false, inText: false)
                        index += 1
                    }
                } while depth > 0 && index < characters.count
            } else if at(0, "\"\"\"") || characters[index] == "\"" {
                let delimiter = at(0, "\"\"\"") ? "\"\"\"" : "\""
                for _ in 0..<delimiter.count {
                    keep(characters[index], inCode: true, inText: true)
                    index += 1
                }
                var depth = 0  // inside \( … )
                while index < characters.count, depth > 0 || !at(0, delimiter) {
                    if characters[index] == "\\", index + 1 < characters.count {
                        if characters[index + 1] == "(" { depth += 1 }
                        keep(characters[index], inCode: false, inText: true)
                        keep(characters[index + 1], inCode: false, inText: true)
                        index += 2
                        continue
                    }
                    if depth > 0, characters[index] == "(" { depth += 1 }
                    if depth > 0, characters[index] == ")" { depth -= 1 }
                    // An interpolation is code: `\(errno)` reads errno.
                    keep(characters[index], inCode: depth > 0, inText: true)
                    index += 1
                }
                for _ in 0..<delimiter.count where index < characters.count {
                    keep(characters[index], inCode: true, inText: true)
                    index += 1
                }
            } else {
                keep(characters[index], inCode: true, inText: true)
                index += 1
            }
        }
        return (code.components(separatedBy: "\n"), text.components(separatedBy: "\n"))
    }

    static func matches(_ pattern: String, _ text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
    }

    // MARK: - One funnel for the system

    /// Where the raw calls may be: `Posix`, the funnel itself; `bench-baseline`, on purpose — it is
    /// the benchmark's floor, "the least a program can do" with sockets and SQLite, and measures what our
    /// code costs by having none of it; and `RunWayDeviceTime`, the device-time preload, which *is* the C
    /// library's clock in an app's process (it defines `clock_gettime`, `gettimeofday` and `time`, so it sets
    /// `errno` as they do) and carries nothing of the device, `Posix` included (issue 49).
    static let funnelExempt: Set<String> = ["Posix", "bench-baseline", "RunWayDeviceTime"]

    /// Calls only Linux has (or spells so): each is wrapped in `Posix`, where a port replaces it.
    static let linuxOnly = [
        "signalfd", "inotify_", "eventfd", "\"/proc/", "SO_PEERCRED", "prctl", "malloc_trim", "mallinfo", "pipe2", "accept4", "SOCK_CLOEXEC",
        "SOCK_NONBLOCK", "MSG_NOSIGNAL", "st_mtim", "addclosefrom_np", "RLIMIT_NOFILE.rawValue", "SOCK_STREAM.rawValue", "SOCK_DGRAM.rawValue",
        "TIOCSWINSZ", "Glibc.",
    ]

    @Test func onlyPosixCallsTheSystemItself() throws {
        var found: [String] = []
        for line in try Self.lines() where !Self.funnelExempt.contains(line.module) {
            // `errno` read (not `error.errno`, not the label `errno:`).
            if !Self.matches(#"(?<![.\w])errno\b(?!\s*:)"#, line.code).isEmpty { found.append("\(line.place): errno") }
            for call in Self.matches(#"(?<![.\w])(?<!func )(?<!case )(recv|pread|link|rename)\("#, line.code) {
                found.append("\(line.place): \(call.dropLast()) (raw)")
            }
            if line.code.trimmingCharacters(in: .whitespaces).hasPrefix("import Glibc") { found.append("\(line.place): import Glibc") }
            for name in Self.linuxOnly where (name.hasPrefix("\"") ? line.text : line.code).contains(name) {
                found.append("\(line.place): \(name) (Linux only)")
            }
        }
        #expect(found.isEmpty, "outside Posix, \(found.count) direct system calls:\n\(found.joined(separator: "\n"))")
    }

    /// The Platforms page's port table (docs/platforms.md, "What a macOS port would replace") names every
    /// file of `Posix` that makes a call only Linux has, and each file it names is there: a Linux-only call
    /// added to `Posix` without a row (or a file renamed under one) fails here, so the page stays what a
    /// port has to replace (issue 52, item 5).
    @Test func thePlatformsPageNamesEveryPosixFileWithACallOnlyLinuxHas() throws {
        let page = try String(contentsOf: ImportRulesTests.root.appendingPathComponent("docs/platforms.md"), encoding: .utf8)
        let section = try #require(page.components(separatedBy: "## What a macOS port would replace").dropFirst().first, "no port section")
        let table = section.split(separator: "\n").filter { $0.hasPrefix("|") }.joined(separator: "\n")
        #expect(table.split(separator: "\n").count > 10, "the port table is gone: \(table)")
        var calling: [String: Set<String>] = [:]
        for line in try Self.lines() where line.module == "Posix" && !line.file.hasSuffix("/Platform.swift") {
            // And `dlsym(nil, …)`: glibc's RTLD_DEFAULT is nil, Darwin's is -2.
            for name in Self.linuxOnly + ["dlsym(nil"] where name != "Glibc." && (name.hasPrefix("\"") ? line.text : line.code).contains(name) {
                calling[URL(fileURLWithPath: line.file).deletingPathExtension().lastPathComponent, default: []].insert(name)
            }
        }
        #expect(calling.count >= 10, "found the Linux-only calls in Posix: \(calling)")
        let unnamed = calling.filter { !table.contains("`\($0.key).swift`") && !table.contains("`\($0.key).") }
        #expect(unnamed.isEmpty, "Posix files with calls only Linux has that docs/platforms.md's port table does not name: \(unnamed)")
        let named = Self.matches(#"`[A-Za-z]+\.swift`"#, table).map { String($0.dropFirst().dropLast()) }
        #expect(!named.isEmpty)
        for file in Set(named) {
            #expect(
                FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent("Posix/" + file).path),
                "the port table names \(file), which Posix does not have")
        }
    }

    // MARK: - A store's tables are read by their owner

    /// The invariant checker reads every store with queries of its own, on purpose: it must not trust the
    /// code whose promises it checks (a reader of the app's would agree with the app's bug).
    static let readsAnyStore: Set<String> = ["PairInvariants"]

    @Test func aStoresTablesAreReadOnlyByTheModuleThatOwnsThem() throws {
        let lines = try Self.lines()
        var owner: [String: String] = [:]
        for line in lines {
            for create in Self.matches(#"CREATE TABLE (IF NOT EXISTS )?[a-z_]+"#, line.text) {
                owner[String(create.split(separator: " ").last!)] = line.module
            }
        }
        #expect(owner["flights"] != nil && owner["received_userinfo"] != nil && owner["health_workouts"] != nil, "found the tables: \(owner)")
        var found: [String] = []
        for line in lines where !Self.readsAnyStore.contains(line.module) && line.text.contains("SELECT") {
            for use in Self.matches(#"(FROM|JOIN) [a-z_]+"#, line.text) {
                let table = String(use.split(separator: " ").last!)
                if let module = owner[table], module != line.module { found.append("\(line.place): \(table) (owned by \(module))") }
            }
        }
        #expect(found.isEmpty, "\(found.count) reads of another module's tables:\n\(found.joined(separator: "\n"))")
    }

    // MARK: - public only in a product

    /// What a product re-exports of a module that is not one (`@_exported import M` in a product's file:
    /// all of it; `@_exported import enum M.Name`: that type): a user sees it through the product, so it
    /// is public on purpose. `nil` in the set stands for the whole module.
    static func reExports(by productModules: Set<String>, _ lines: [Line]) -> [String: Set<String?>] {
        var shown: [String: Set<String?>] = [:]
        for line in lines where productModules.contains(line.module) {
            let words = line.code.split(separator: " ").map(String.init)
            guard words.first == "@_exported", words.dropFirst().first == "import", let last = words.last else { continue }
            let parts = last.split(separator: ".").map(String.init)
            shown[parts[0], default: []].insert(parts.count > 1 ? parts[1] : nil)
        }
        return shown
    }

    @Test func onlyAProductDeclaresPublic() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: try ImportRulesTests.dumpPackage()) as? [String: Any])
        let products = (json["products"] as? [[String: Any]] ?? []).filter { ($0["type"] as? [String: Any])?["library"] != nil }
        let productModules = Set(products.flatMap { $0["targets"] as? [String] ?? [] })
        #expect(productModules.contains("WatchConnectivity"), "dump-package listed \(productModules.sorted())")
        let lines = try Self.lines()
        let shown = Self.reExports(by: productModules, lines)
        #expect(shown["KeyValueObserving"] == [nil] && shown["PropertyLists"] == ["PropertyListValue"], "re-exported: \(shown)")
        var found: [String] = []
        // The type a top-level declaration or extension is of, for the public members of a type shown by name.
        var topLevel: String?
        var depth = 0
        var file = ""
        for line in lines where !productModules.contains(line.module) {
            if line.file != file { (file, depth, topLevel) = (line.file, 0, nil) }
            if depth == 0 {
                topLevel = Self.matches(#"\b(enum|struct|class|extension|protocol|typealias) [A-Za-z]+"#, line.code).first.map {
                    String($0.split(separator: " ")[1])
                }
            }
            depth += line.code.filter { $0 == "{" }.count - line.code.filter { $0 == "}" }.count
            guard !Self.matches(#"(?<![\w.])public\b"#, line.code).isEmpty else { continue }
            let allowed = shown[line.module].map { set in set.contains(nil) || (topLevel != nil && set.contains(topLevel)) } ?? false
            if !allowed { found.append(line.place) }
        }
        #expect(found.isEmpty, "\(found.count) public declarations a product does not show:\n\(found.joined(separator: "\n"))")
    }
}
