import Connectivity
import JSONText

/// The catalogue of the control protocol: every command, its arguments and its failures, in one place.
/// The daemons' router, the `runway` CLI's requests, `runway man` and `docs/protocol.md` all read it.
package enum ControlCommands {
    static let both: Set<ControlServerKind> = [.phone, .watch]
    /// What the OS answers: the device's own process when the OS runs there, phone-os when it runs the phone.
    static let os: Set<ControlServerKind> = [.phone, .watch, .phoneOS, .watchOS]
    /// The largest string a request can carry: the control socket's frame.
    static let textBytes = ControlClient.frameLimit

    /// Every command, each declared as a type (`ControlCommand`, issues 43 and 53), family by family.
    package static let all: [ControlCommandSpec] = declared.map { $0.spec }

    /// The commands, family by family: each family's list is in its own file, beside its types
    /// (`Sources/Control/Commands`), so a command joining a family is named there, not here; only a new
    /// family adds a line here.
    package static let declared: [any ControlCommand.Type] =
        inspectionCommands + sessionAPICommands + logbookCommands + liveRunCommands + viewGroupCommands + appUpdateCommands + watchCommands
        + linkConditionCommands + faultCapCommands + appSettingsCommands + deviceCommands + osCommands + osServiceCommands

    /// The OS services' calls, service by service (`Sources/Control/Commands/OS*Requests.swift`): each an
    /// `OSRequest` too, which the OS answers (`SystemServices.requests`); a new service adds its list here.
    package static let osServiceCommands: [any ControlCommand.Type] = ClockRequest.commands + NotificationRequest.commands + HealthRequest.commands
}
