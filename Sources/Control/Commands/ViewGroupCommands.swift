// MARK: - The phone's remembered groups (a view's month groups, open or closed): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let viewGroupCommands: [any ControlCommand.Type] = [Groups.self, GroupSet.self, GroupsReset.self]

    /// `groups`: the remembered groups of a view. Its `view` is every command's of this family.
    package enum Groups: ControlCommand {
        package typealias Reply = GroupsReply
        package static let view = ControlArgument<String>("view", .choice(["logbook", "alerts"]), required: true, "the grouped view")
        package static let spec = ControlCommandSpec(Self.self, "groups", [.phone], arguments: [view], "the remembered groups of a view")
    }

    /// `group-set`: open or close a month's group.
    package enum GroupSet: ControlCommand {
        package typealias Reply = GroupSetReply
        package static let view = Groups.view
        package static let key = ControlArgument<String>("key", .format(.month), required: true, "the month's group")
        package static let expanded = ControlArgument<Bool>("expanded", .bool, required: true, "open (true) or closed (false)")
        package static let spec = ControlCommandSpec(
            Self.self, "group-set", [.phone], arguments: [view, key, expanded], "open or close a month's group")
    }

    /// `groups-reset`: the groups' defaults again.
    package enum GroupsReset: ControlCommand {
        package typealias Reply = GroupsResetReply
        package static let view = Groups.view
        package static let spec = ControlCommandSpec(Self.self, "groups-reset", [.phone], arguments: [view], "the groups' defaults again")
    }
}
