// MARK: - The phone's remembered groups (a view's month groups, open or closed): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let viewGroupCommands: [any ControlCommand.Type] = [Groups.self, GroupSet.self, GroupsReset.self]

    /// The grouped views (every command of this family takes one).
    static let views: ControlArgumentKind = .choice(["logbook", "alerts"])

    /// `groups`: the remembered groups of a view.
    package struct Groups: ControlCommand {
        package typealias Reply = GroupsReply
        @Argument(views, "the grouped view") package var view: String
        package static let spec = ControlCommandSpec(Self.self, "groups", [.phone], "the remembered groups of a view")
        package init() {}
    }

    /// `group-set`: open or close a month's group.
    package struct GroupSet: ControlCommand {
        package typealias Reply = GroupSetReply
        @Argument(views, "the grouped view") package var view: String
        @Argument(.format(.month), "the month's group") package var key: String
        @Argument(.bool, "open (true) or closed (false)") package var expanded: Bool
        package static let spec = ControlCommandSpec(Self.self, "group-set", [.phone], "open or close a month's group")
        package init() {}
    }

    /// `groups-reset`: the groups' defaults again.
    package struct GroupsReset: ControlCommand {
        package typealias Reply = GroupsResetReply
        @Argument(views, "the grouped view") package var view: String
        package static let spec = ControlCommandSpec(Self.self, "groups-reset", [.phone], "the groups' defaults again")
        package init() {}
    }
}
