@_exported import Foundation
import AppHost

// MARK: - ClockKit: the complication server, as watch-os keeps it
//
// A watch app whose data changed asks the system to reload its complication's timeline; the system then
// asks the app's data source for new entries. Here there is no watch face to draw: each request is told
// to watch-os, which records it (`runway watch os status`: complication reloads by kind, and the watch's
// log, `os.complication-reload`), so a test can show that complication data led to a reload. Whether the
// complication is on the face is the system's (`runway watch complication on|off`).

/// The identifier of a complication the app did not describe itself.
public let CLKDefaultComplicationIdentifier = "CLKDefaultComplicationIdentifier"

/// The shapes a complication takes on a face (ClockKit's `CLKComplicationFamily`).
public enum CLKComplicationFamily: Int, Sendable, CaseIterable {
    case modularSmall = 0
    case modularLarge = 1
    case utilitarianSmall = 2
    case utilitarianLarge = 3
    case circularSmall = 4
    case utilitarianSmallFlat = 6
    case extraLarge = 7
    case graphicCorner = 8
    case graphicBezel = 9
    case graphicCircular = 10
    case graphicRectangular = 11
    case graphicExtraLarge = 12
}

/// One of the app's complications on the active face.
public final class CLKComplication: NSObject, @unchecked Sendable {
    public let family: CLKComplicationFamily
    public let identifier: String
    /// What the app attached to the complication's descriptor, if anything.
    public let userInfo: [AnyHashable: Any]?

    init(family: CLKComplicationFamily, identifier: String = CLKDefaultComplicationIdentifier) {
        self.family = family
        self.identifier = identifier
        userInfo = nil
        super.init()
    }
}

/// The system's complication server (ClockKit's `CLKComplicationServer`).
public final class CLKComplicationServer: NSObject, @unchecked Sendable {
    private static let server = CLKComplicationServer()
    public static func sharedInstance() -> CLKComplicationServer { server }

    override private init() { super.init() }

    /// The app's complications on the active face: one (`graphicCorner`) while the complication is on,
    /// none while it is off (`runway watch complication on|off`); nil on a watch no OS runs.
    public var activeComplications: [CLKComplication]? {
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment() else { return nil }
        return host.mailbox.sync { host.complicationEnabled } ? [CLKComplication(family: .graphicCorner)] : []
    }

    /// Asks for the complication's whole timeline again (recorded by watch-os: `clockkit.reloadTimeline`).
    public func reloadTimeline(for complication: CLKComplication) {
        AppLaunch.reportReload("clockkit.reloadTimeline")
    }

    /// Asks for entries after the last one (recorded by watch-os: `clockkit.extendTimeline`).
    public func extendTimeline(for complication: CLKComplication) {
        AppLaunch.reportReload("clockkit.extendTimeline")
    }

    /// Asks for the app's complication descriptors again (recorded: `clockkit.reloadDescriptors`).
    public func reloadComplicationDescriptors() {
        AppLaunch.reportReload("clockkit.reloadDescriptors")
    }
}
