// manager-app: hosts a session manager written as apps write one, on the simulated phone (`phone-os
// --app`): IntakeSessionStore (saves each entry in its callback, KVO, os.Logger), or with
// --connectivity-store the ConnectivityStore of WatchConnectivitySwift5Tests (@MainActor, publishing
// what arrived). What the store publishes is written as a list bound to it would show it: each id
// appended goes to Documents/published.log as "pid id", so the tests can check that what it publishes is
// what arrived, once, in order. A change published with no `objectWillChange` before it is marked.

import Foundation
import WatchConnectivity

let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
try? FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
let published = documents.appendingPathComponent("published.log")
if !FileManager.default.fileExists(atPath: published.path) { FileManager.default.createFile(atPath: published.path, contents: nil) }
let output = try FileHandle(forWritingTo: published)
try output.seekToEnd()

/// Writes the ids a published list gained since the last call.
final class PublishedList {
    var shown: Int
    var willChange = 0
    init(shown: Int) { self.shown = shown }

    func show(_ ids: [String]) {
        guard ids.count > shown else { return }
        let pid = ProcessInfo.processInfo.processIdentifier
        let lines = ids[shown...].map { "\(pid) \($0)\n" }.joined()
        shown = ids.count
        let mark = willChange > 0 ? "" : "\(pid) objectWillChange-missing\n"
        try? output.write(contentsOf: Data((mark + lines).utf8))
    }
}

var cancellables = Set<AnyCancellable>()
var keep: [AnyObject] = []
if CommandLine.arguments.contains("--connectivity-store") {
    MainActor.assumeIsolated {
        let store = ConnectivityStore()
        let list = PublishedList(shown: 0)
        store.objectWillChange.sink { list.willChange += 1 }.store(in: &cancellables)
        store.$receivedMessages.receive(on: RunLoop.main).sink { list.show($0) }.store(in: &cancellables)
        keep.append(store)
    }
} else {
    let store = IntakeSessionStore(directory: documents)
    let list = PublishedList(shown: store.entries.count)
    store.objectWillChange.sink { list.willChange += 1 }.store(in: &cancellables)
    store.$entries.receive(on: DispatchQueue.main).sink { list.show($0) }.store(in: &cancellables)
    keep.append(store)
    if WCSession.isSupported() { store.start() }
}
RunLoop.main.run()
