import Foundation
import PairTesting
import Testing

/// The files a developer on a Mac or in CI uses (issue 52, item 5; docs/platforms.md): the Dockerfile and
/// the dev container that use it, and the workflow a consumer copies. `docker build` cannot run on this
/// machine (a client, no daemon), so what is checked is what can be: the image carries the Swift CI runs,
/// what it copies exists, its RUN command runs here as a script and succeeds (it is the same
/// `scripts/setup` CI runs), the dev container builds that Dockerfile and runs that setup, and the
/// workflow runs the same image with what the build links.
@Suite struct PlatformFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func read(_ path: String) throws -> String { try String(contentsOfFile: Self.root + "/" + path, encoding: .utf8) }

    /// The toolchain these tests run on, as `MAJOR.MINOR` (`Swift version 6.3.1 (…)` → `6.3`).
    func toolchain() throws -> String {
        let result = try runTool(["swift", "--version"], binary: "/usr/bin/env")
        let text = result.stdout + result.stderr
        let version = try #require(text.components(separatedBy: "Swift version ").dropFirst().first?.split(separator: " ").first, "\(text)")
        return version.split(separator: ".").prefix(2).joined(separator: ".")
    }

    /// The Dockerfile's base image (its `ARG SWIFT_IMAGE=` default, which `FROM` uses).
    func dockerImage() throws -> String {
        let text = try read("Dockerfile")
        #expect(text.contains("\nFROM ${SWIFT_IMAGE}\n"), "the Dockerfile is not built FROM its SWIFT_IMAGE")
        return try #require(text.split(separator: "\n").first { $0.hasPrefix("ARG SWIFT_IMAGE=") }.map { String($0.dropFirst("ARG SWIFT_IMAGE=".count)) })
    }

    @Test func theDockerfilesImageIsCIsToolchainAndItsCommandsRunHere() throws {
        #expect(try dockerImage() == "swift:\(toolchain())-bookworm")
        var copied: [String: String] = [:]
        var runs: [String] = []
        for line in try read("Dockerfile").split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if words.first == "COPY", words.count == 3 {
                #expect(FileManager.default.fileExists(atPath: Self.root + "/" + words[1]), "COPY \(words[1]): no such file")
                copied[words[2]] = Self.root + "/" + words[1]
            } else if words.first == "RUN" {
                runs.append(String(line.dropFirst(4)))
            }
        }
        #expect(!copied.isEmpty && !runs.isEmpty)
        for run in runs {
            // As the image runs it, but with each copied file where it is in the repository.
            let command = copied.reduce(run) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
            let result = try runTool(["-c", command], binary: "/bin/bash")
            #expect(result.status == 0, "RUN \(command): \(result.stderr)")
        }
    }

    @Test func theDevContainerBuildsThatDockerfileAndRunsTheSameSetup() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(read(".devcontainer/devcontainer.json").utf8)) as? [String: Any])
        let build = try #require(object["build"] as? [String: Any])
        #expect(build["dockerfile"] as? String == "../Dockerfile" && build["context"] as? String == "..")
        #expect((object["postCreateCommand"] as? String)?.contains("scripts/setup --for test") == true)
        #expect((object["runArgs"] as? [String])?.contains("--init") == true)
    }

    /// The workflow a consumer copies: the Dockerfile's image, the packages `scripts/setup --for build`
    /// checks for (no more, no fewer), the build and the test.
    @Test func theConsumerWorkflowRunsTheSameImageWithWhatTheBuildLinks() throws {
        let workflow = try read("docs/ci/github-actions.yml")
        #expect(!workflow.contains("\t"), "a tab in YAML")
        for key in ["name:", "on:", "jobs:"] { #expect(workflow.split(separator: "\n").contains { $0.hasPrefix(key) }, "no top-level \(key)") }
        #expect(workflow.contains("container: \(try dockerImage())\n"))
        let install = try #require(workflow.split(separator: "\n").first { $0.contains("apt-get install") })
        let packages = Set(install.split(separator: " ").map(String.init).filter { $0 == "pkg-config" || $0.hasSuffix("-dev") })
        let setup = try read("scripts/setup")
        let buildLine = try #require(setup.split(separator: "\n").first { $0.contains("--for build") })
        let needed = Set(
            buildLine.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",()")) }.filter {
                $0 == "pkg-config" || $0.hasSuffix("-dev")
            })
        #expect(packages == needed && !needed.isEmpty, "the workflow installs \(packages.sorted()), setup --for build checks \(needed.sorted())")
        #expect(workflow.contains("run: swift build --build-tests\n") && workflow.contains("run: swift test"))
    }
}
