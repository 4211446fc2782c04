// swift-tools-version:6.0
// RunWay Pair: a two-process simulator of the RunWay iPhone + Apple Watch pair.
//
// Layers, bottom to top (each depends only on those before it):
//   CSQLite, CCrypto, CLinux - the only C: system headers, nothing else (COSLog: the empty Clang module `os`)
//   Posix            - errno funnel, owned descriptors, Unix sockets, poll loop, flock, signals, logging
//   JSONText         - a strict JSON parser and a fast writer (command line, control socket, flights)
//   Storage          - SQLite: Database, Statement, migrations
//   Connectivity     - the WatchConnectivity-style session: frames, handshake, outbox, acks (knows no flights)
//   RunWayDomain     - the app domain, no Foundation: flights, logbook, alerts (what the CLI reads too)
//   RunWayApp        - the apps on the Apple-named APIs: the view model that saves on receipt, the delegates
//   Control          - the control socket's protocol: frames, commands and replies, client, server plumbing
//   TerminalViews    - pure text pictures: sparklines, braille charts, the timeline and its SVG
//   OSServices       - the OS's services: the device's clock, notification centre, Health store
//   AppHost          - what hosts an app in its process: its session, control socket and OS client
//   OSProcess        - phone-os and watch-os: launch, budget and reclaim the app, answer while it sleeps
//   RunWayDevices    - RunWay's devices: its apps on the host, as phone-daemon and watch-agent
//   PairInvariants   - the invariant checker: lost, duplicated, order, integrity (the harness's and the CLI's)
//   RunWayCLI        - the `runway` command-line client
//   PairTesting      - the integration harness: real processes, real signals
import PackageDescription

let package = Package(
    name: "RunWayPair",
    products: [
        .executable(name: "phone-daemon", targets: ["phone-daemon"]),
        .executable(name: "watch-agent", targets: ["watch-agent"]),
        .executable(name: "phone-os", targets: ["phone-os"]),
        .executable(name: "watch-os", targets: ["watch-os"]),
        .executable(name: "runway", targets: ["runway"]),
        .executable(name: "runway-demo", targets: ["runway-demo"]),
        .executable(name: "runway-chaos", targets: ["runway-chaos"]),
        // Apple's session API, for any app on the simulated devices (this project's implementation).
        .library(name: "WatchConnectivity", targets: ["WatchConnectivity"]),
        // Apple's local-notification API, backed by the simulated device's OS.
        .library(name: "UserNotifications", targets: ["UserNotifications"]),
        .library(name: "UIKit", targets: ["UIKit"]),
        // The part of Apple's Combine session managers use: ObservableObject, @Published, subjects, sink.
        .library(name: "Combine", targets: ["Combine"]),
        // Apple's unified logging (`Logger`), writing the device's log lines to the app's stderr.
        .library(name: "os", targets: ["os"]),
        // WatchKit's app object, delegates and background tasks, backed by watch-os.
        .library(name: "WatchKit", targets: ["WatchKit"]),
        // ClockKit's complication server and WidgetKit's widget center: reloads recorded by watch-os.
        .library(name: "ClockKit", targets: ["ClockKit"]),
        .library(name: "WidgetKit", targets: ["WidgetKit"]),
        // HealthKit's workout session, live builder and Health store, backed by the device's OS.
        .library(name: "HealthKit", targets: ["HealthKit"]),
        // The device clock in an app's process: phone-os and watch-os set it as LD_PRELOAD for the apps they
        // launch, so the app's own Date() is the device's (`runway clock`); found next to their binaries.
        .library(name: "RunWayDeviceTime", type: .dynamic, targets: ["RunWayDeviceTime"]),
        // For your own swift test: a simulated pair with your apps on it, and the check over your ids.
        .library(name: "RunWayPairTesting", targets: ["RunWayPairTesting"]),
        // `swift package --disable-sandbox runway …`: runway with your package's executables found by product name.
        .plugin(name: "RunWayPlugin", targets: ["RunWayCommand"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libcrypto (OpenSSL): SHA-256 for the file transfers' checksum, hardware-accelerated in every build;
        // its header (libssl-dev) to build, the library opened at the first hash, not linked (shim.h).
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinux"),
        // The Clang module `os` with its `log` submodule, declaring nothing: `import os.log` resolves to it
        // and brings its Swift overlay, the target `os` (docs/your-app.md, "os").
        .systemLibrary(name: "COSLog"),
        .target(name: "Posix", dependencies: ["CLinux"]),
        .target(name: "JSONText"),
        // The device-time preload: the C library's real-time clock moved by the device clock's offset, in
        // the apps the OSes launch (docs/device-time.md). Standalone: Glibc and Synchronization only.
        .target(name: "RunWayDeviceTime"),
        .target(name: "Storage", dependencies: ["CSQLite", "Posix"]),
        // Property-list values and their deterministic binary codec: what WatchConnectivity carries.
        .target(name: "PropertyLists", dependencies: ["Posix"]),
        // SHA-256 for the file transfers' end-to-end checksum, from libcrypto: a 200 MB file is hashed on both
        // sides, as fast in a debug build as in a release one (docs/performance.md), with no unsafe flags.
        .target(name: "Digest", dependencies: ["CCrypto"]),
        .target(name: "Connectivity", dependencies: ["Posix", "Storage", "PropertyLists", "Digest"]),
        // Test support, not shipped in the daemons: the in-memory link for the session's unit tests.
        .target(name: "ConnectivityTesting", dependencies: ["Connectivity", "Posix"]),
        // The control socket's protocol: frames, commands, replies, the client and the server's plumbing.
        .target(name: "Control", dependencies: ["Posix", "JSONText", "PropertyLists", "Connectivity"]),
        // A device's operating-system services: the clock, the notification centre (HOME/os.sqlite).
        .target(name: "OSServices", dependencies: ["Posix", "JSONText", "Storage", "Control"]),
        // A device's process: the WatchConnectivity service, the control socket, the OS when it runs there.
        .target(
            name: "AppHost", dependencies: ["Posix", "JSONText", "Storage", "PropertyLists", "Digest", "Connectivity", "Control", "OSServices"]),
        // The public APIs apps are written against, with Apple's names. Each re-exports Foundation, Combine's
        // subset and key-value observing, as Apple's frameworks bring Foundation's names (docs/your-app.md).
        .target(name: "Combine"),
        // `observe(_:options:changeHandler:)` and NSKeyValueObservation, which corelibs Foundation lacks.
        .target(name: "KeyValueObserving"),
        .target(name: "os", dependencies: ["Posix", "COSLog"]),
        .target(
            name: "WatchConnectivity",
            dependencies: ["Posix", "PropertyLists", "Digest", "Connectivity", "Control", "AppHost", "Combine", "KeyValueObserving"]),
        .target(name: "UserNotifications", dependencies: ["Control", "OSServices", "AppHost", "Combine", "KeyValueObserving"]),
        // A sliver of UIKit: UIApplication's state (background launch or on screen) and its notifications.
        .target(name: "UIKit", dependencies: ["AppHost", "Combine", "KeyValueObserving"]),
        // WatchKit's app lifecycle and background tasks, as watch-os runs them; ClockKit's and WidgetKit's
        // reloads; HealthKit's workouts and Health store, kept by the device's OS. Each re-exports Foundation,
        // Combine's subset and key-value observing, as UIKit does.
        .target(name: "WatchKit", dependencies: ["AppHost", "HealthKit", "Combine", "KeyValueObserving"]),
        .target(name: "ClockKit", dependencies: ["AppHost", "Combine", "KeyValueObserving"]),
        // WidgetKit's reloads are told to the OS and need no device in the process (AppNotifier, in Posix).
        .target(name: "WidgetKit", dependencies: ["Posix", "Combine", "KeyValueObserving"]),
        .target(name: "HealthKit", dependencies: ["Connectivity", "Control", "OSServices", "AppHost", "PropertyLists", "Combine", "KeyValueObserving"]),
        // RunWay's domain, with no Apple-named API and no Foundation: flights, the logbook, alerts,
        // reminders' texts, the app's own control commands — what the CLI reads too (so it links no
        // Foundation: docs/performance.md, "Light at rest").
        .target(name: "RunWayDomain", dependencies: ["Posix", "Storage", "PropertyLists", "JSONText", "Control"]),
        // RunWay's phone and watch apps: tenants of the devices, on the public APIs only.
        .target(
            name: "RunWayApp",
            dependencies: [
                "Posix", "Storage", "PropertyLists", "JSONText", "Control", "RunWayDomain", "WatchConnectivity", "UserNotifications", "WatchKit",
                "HealthKit",
            ]),
        // The devices' simulated OSes (phone-os, watch-os): launch and reclaim the app.
        .target(name: "OSProcess", dependencies: ["Posix", "JSONText", "Storage", "PropertyLists", "Connectivity", "Control", "OSServices", "AppHost"]),
        // RunWay's devices: the device's process composed with a RunWay app (phone-daemon, watch-agent).
        .target(name: "RunWayDevices", dependencies: ["Posix", "Control", "Connectivity", "AppHost", "RunWayApp"]),
        // Pure text pictures (sparklines, charts, the timeline and its SVG) for the CLI's views.
        .target(name: "TerminalViews", dependencies: ["JSONText"]),
        // The promise, checked (lost, duplicated, order, outstanding, the stores' integrity): for the
        // harness and for `runway scenario run`, which must not carry the harness.
        .target(name: "PairInvariants", dependencies: ["Posix", "Storage", "Digest"]),
        .target(
            name: "RunWayCLI",
            dependencies: [
                "Posix", "JSONText", "Storage", "PropertyLists", "Connectivity", "OSServices", "AppHost", "RunWayDomain", "Control", "TerminalViews",
                "PairInvariants",
            ]),
        .target(name: "PairTesting", dependencies: ["Posix", "Storage", "JSONText", "PairInvariants", "RunWayDomain", "Control"]),
        .target(name: "RunWayPairTesting", dependencies: ["PairTesting", "JSONText", "Posix"]),
        .plugin(
            name: "RunWayCommand",
            capability: .command(intent: .custom(verb: "runway", description: "Build the simulator and run runway with your executables by product name"))
        ),
        .executableTarget(name: "phone-daemon", dependencies: ["RunWayDevices", "Posix"]),
        .executableTarget(name: "watch-agent", dependencies: ["RunWayDevices", "Posix"]),
        // The phone's simulated iOS: owns link.sock, launches phone-daemon by socket activation.
        .executableTarget(name: "phone-os", dependencies: ["OSProcess", "Posix"]),
        .executableTarget(name: "watch-os", dependencies: ["OSProcess", "Posix"]),
        .executableTarget(name: "runway", dependencies: ["RunWayCLI", "Posix"]),
        .executableTarget(name: "runway-demo", dependencies: ["PairTesting", "JSONText"]),
        .executableTarget(name: "bench-baseline", dependencies: ["CSQLite"]),
        .executableTarget(
            name: "runway-bench", dependencies: ["PairTesting", "Control", "RunWayApp", "PropertyLists", "Connectivity", "JSONText", "Storage", "Posix"]),
        // A raw socket client for the hardening tests: a peer of another uid, which they cannot be themselves.
        .executableTarget(name: "runway-probe", dependencies: ["PairTesting", "Posix"]),
        .executableTarget(name: "runway-chaos", dependencies: ["PairTesting"]),
        // The smallest app a developer could bring, on the public WatchConnectivity only: the fixture of the
        // tests that host an app that is not RunWay's (phone-os --app, watch-agent --app).
        .executableTarget(name: "probe-app", dependencies: ["WatchConnectivity", "UIKit", "HealthKit", "UserNotifications"]),
        // An ObservableObject session manager with KVO and os.Logger, as apps write one: hosted on the pair by
        // the integration tests (AppleModulesHostedTests), its store compiled in both language modes too.
        .executableTarget(name: "manager-app", dependencies: ["WatchConnectivity", "os"]),
        // A watch app written as for watchOS (WatchKit's delegate and tasks, ClockKit, WidgetKit): the
        // fixture of the tests of watch-os's background tasks, refreshes and reloads.
        .executableTarget(name: "wrist-app", dependencies: ["WatchKit", "WatchConnectivity", "ClockKit", "WidgetKit", "HealthKit"]),
        // Apple's mirroring sample's two apps in their shape, with no WCSession at all (issue 49): the
        // phone's starts the watch's workout and takes its mirrored session; the watch's runs the workout.
        .executableTarget(name: "workout-phone", dependencies: ["HealthKit", "UIKit", "os"]),
        .executableTarget(name: "workout-watch", dependencies: ["HealthKit", "WatchKit", "ClockKit", "os"]),
        // Apple's mirroring sample's two apps in its idioms, with only the SwiftUI views left out (issue 49's
        // "run unchanged"): HealthKit's async forms, HKLiveWorkoutBuilder, os.Logger and Combine, no WCSession.
        .executableTarget(name: "mirroring-phone", dependencies: ["HealthKit", "UIKit", "Combine", "os"]),
        .executableTarget(name: "mirroring-watch", dependencies: ["HealthKit", "WatchKit", "Combine", "os"]),
        .testTarget(name: "PosixTests", dependencies: ["Posix", "JSONText", "PairTesting"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "PairTesting", "Posix"]),
        .testTarget(
            name: "ConnectivityTests",
            dependencies: [
                "Connectivity", "ConnectivityTesting", "Control", "Storage", "Posix", "PropertyLists", "JSONText", "PairTesting", "RunWayApp", "Digest",
            ]),
        .testTarget(name: "ControlTests", dependencies: ["Control", "Connectivity", "JSONText"]),
        .testTarget(
            name: "RunWayAppTests",
            dependencies: [
                "RunWayApp", "RunWayDomain", "PropertyLists", "Connectivity", "Control", "Storage", "PairTesting", "OSServices", "UserNotifications",
                "WatchConnectivity", "HealthKit",
                "JSONText", "Posix",
            ]),
        .testTarget(name: "OSServicesTests", dependencies: ["OSServices", "Control", "JSONText", "Posix", "Storage", "PairTesting"]),
        // Code written for iOS and watchOS, compiled unchanged against WatchConnectivity, UIKit, os, WatchKit,
        // ClockKit, WidgetKit and HealthKit in both language modes (the Swift 6 target links the Swift 5 target's files),
        // with the upcoming MemberImportVisibility: a member is visible only from a module the file imports.
        .testTarget(
            name: "WatchConnectivitySwift5Tests",
            dependencies: [
                "WatchConnectivity", "UIKit", "UserNotifications", "os", "WatchKit", "ClockKit", "WidgetKit", "HealthKit", "PropertyLists", "Combine",
            ],
            swiftSettings: [.swiftLanguageMode(.v5), .enableUpcomingFeature("MemberImportVisibility")]),
        // Combine's subset, key-value observing and os.Logger, each alone.
        .testTarget(name: "AppleModulesTests", dependencies: ["Combine", "KeyValueObserving", "os", "Posix"]),
        // The package's layering, read from Package.swift and the sources' imports.
        .testTarget(name: "PackageRulesTests"),
        .testTarget(
            name: "WatchConnectivitySwift6Tests",
            dependencies: ["WatchConnectivity", "UIKit", "UserNotifications", "os", "WatchKit", "ClockKit", "WidgetKit", "HealthKit", "Combine"],
            swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("MemberImportVisibility")]),
        .testTarget(name: "PairTestingTests", dependencies: ["PairTesting", "Storage"]),
        .testTarget(name: "TerminalViewsTests", dependencies: ["TerminalViews", "JSONText", "Posix"]),
        // Every parser of outside text, total (the properties `scripts/fuzz --target NAME` fuzzes).
        .testTarget(
            name: "ParserTests",
            dependencies: ["Posix", "JSONText", "PropertyLists", "Connectivity", "RunWayApp", "Control", "TerminalViews", "RunWayCLI", "Storage"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "PairTesting", "JSONText", "Control", "OSProcess", "PropertyLists", "Connectivity", "Posix", "RunWayApp", "Storage", "RunWayPairTesting",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
