import Connectivity
import AppHost
import Foundation
import Posix
import RunWayApp

/// RunWay's phone and watch as devices: the device's process (`DeviceHost`: the WatchConnectivity
/// service, the control socket, the OS's services when no `phone-os` runs it) composed with a RunWay app.
/// The only place that knows both: the device layer imports no app, the app no device internals.
package enum RunWayDevice {
    /// Runs one device with the app `launch` builds and launches (its store, model, delegate,
    /// activation) until SIGTERM; returns the exit status.
    package static func run(
        _ configuration: DeviceHost.Configuration, activation: PhoneActivation?, bundleID: String,
        launch: @escaping (AppContext) throws -> AnyObject
    ) throws -> Int32 {
        // The OS that launched the app named its container; else it is the app's own bundle's — one
        // container per app, where the system stages received files too (not `apps/unnamed`).
        let home = DeviceHome(path: configuration.home, role: configuration.role).path
        var configuration = configuration
        configuration.container =
            configuration.container ?? DeviceEnvironment.value(DeviceEnvironment.container) ?? AppContainer(path: nil, home: home, bundleID: bundleID).path
        let host = try DeviceHost(configuration)
        let container = AppContainer(path: host.configuration.container, home: home, bundleID: bundleID)
        host.activation = activation
        // RunWay 1.4's rule for "the versions differ" (trailing `.0`s ignored), logged once a link.
        host.onLinkEstablished.append { [logger = host.logger] handshake in
            let local = configuration.session.appVersion
            guard AppVersion.differ(local, handshake.appVersion) else { return }
            logger.notice("link.version-mismatch", ["local": local, "peer": handshake.appVersion])
        }
        var app: AnyObject?
        let status = try host.run {
            try container.prepare()
            if host.configuration.runsOperatingSystem { container.applyToEnvironment() }
            let context = AppContext(
                loop: host.loop, logger: host.logger, router: host.router, control: host.control,
                deviceNow: { [unowned host] in host.deviceNow }, container: container.path,
                fail: { [unowned host] event, reason in host.fail(event, reason) },
                contributeStatus: { [unowned host] contribute in host.statusContributors.append(contribute) },
                registerStore: { [unowned host] database in
                    host.faultableStores.append(database)
                    if let pages = configuration.maximumStorePages { try? database.setMaximumPageCount(pages) }
                })
            app = try launch(context)
        }
        withExtendedLifetime(app) {}
        return status
    }
}
