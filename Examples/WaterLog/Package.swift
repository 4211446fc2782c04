// swift-tools-version:6.0
// WaterLog: a phone + watch water-intake logger written the way iOS developers write one — a
// WCSessionDelegate class per side, the watch sending each entry with transferUserInfo — tested on the
// simulated pair with RunWayPairTesting. It depends on RunWay Pair by path; RunWay Pair does not build it.
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, whatever the clone is called.
let runWayPair = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()
let runWayPairIdentity = runWayPair.lastPathComponent

let package = Package(
    name: "WaterLog",
    dependencies: [.package(path: runWayPair.path)],
    targets: [
        // What both apps share: the entry, and each side's session manager.
        .target(
            name: "WaterLogKit",
            dependencies: [
                .product(name: "WatchConnectivity", package: runWayPairIdentity),
                .product(name: "UIKit", package: runWayPairIdentity),
            ]),
        .executableTarget(name: "WaterPhone", dependencies: ["WaterLogKit"]),
        // The watch app: WatchKit's extension delegate completes the tasks watch-os hands it.
        .executableTarget(
            name: "WaterWatch",
            dependencies: [
                "WaterLogKit", .product(name: "WatchConnectivity", package: runWayPairIdentity),
                .product(name: "WatchKit", package: runWayPairIdentity),
            ]),
        // The other mix: your phone app, RunWay's watch.
        .executableTarget(
            name: "RunLogPhone",
            dependencies: [
                "WaterLogKit", .product(name: "WatchConnectivity", package: runWayPairIdentity),
                .product(name: "UIKit", package: runWayPairIdentity),
            ]),
        .testTarget(
            name: "WaterLogTests",
            dependencies: ["WaterLogKit", .product(name: "RunWayPairTesting", package: runWayPairIdentity)]),
    ]
)
