import Connectivity
import Control
import Testing

/// The one place control requests are dispatched: the checks every command passes before its handler.
@Suite struct ControlRouterTests {
    func router(_ server: ControlServerKind) -> ControlRouter {
        let router = ControlRouter(server: server)
        for spec in ControlCommands.answered(by: server) { router.on(spec) { _, _ in } }
        return router
    }

    @Test func theCatalogueNamesEachCommandOnce() {
        let names = ControlCommands.all.map(\.name)
        // A name is one command on each server (`app` is three: the watch's, phone-os's, watch-os's).
        for server in ControlServerKind.allCases {
            let answered = ControlCommands.answered(by: server).map(\.name)
            #expect(Set(answered).count == answered.count, "\(server)")
        }
        #expect(names.filter { $0 == "app" }.count == 3)
        #expect(names.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLowercase || $0 == "-" } })
        for server in ControlServerKind.allCases { #expect(!ControlCommands.answered(by: server).isEmpty) }
    }

    /// Issue 43: `context-set` was registered twice and the last registration silently won.
    @Test func aSecondRegistrationIsAProgrammingErrorAndReplaceSaysItsIntent() {
        let router = ControlRouter(server: .phone)
        #expect(router.registrationProblem(ControlCommands.Logbook.spec, replacing: true) == "logbook is not registered on the phone: nothing to replace")
        #expect(router.registrationProblem(ControlCommands.Record.spec, replacing: false) == "record is not a phone command in ControlCommands")
        router.on(ControlCommands.Logbook.spec) { _, _ in }
        #expect(
            router.registrationProblem(ControlCommands.Logbook.spec, replacing: false)
                == "logbook is registered twice on the phone: use replace(_:_:) to take a command over")
        #expect(router.registrationProblem(ControlCommands.Logbook.spec, replacing: true) == nil)
        router.replace(ControlCommands.Logbook.spec) { _, _ in }
        #expect(!router.unregistered.contains("logbook"))
    }

    @Test func aCommandOfAnotherProgramIsUnknownHere() {
        let phone = router(.phone)
        #expect(throws: ControlError.self) { try phone.handler(for: "record") }  // the watch's
        #expect(throws: ControlError.self) { try phone.handler(for: "os-jetsam") }  // phone-os's
        #expect(throws: ControlError.self) { try phone.handler(for: "nonsense") }
        do {
            _ = try phone.handler(for: "record")
        } catch {
            #expect(error.exitStatus == 2)
            #expect(error.message == "the phone does not know the command 'record'")
        }
        #expect((try? phone.handler(for: "logbook")) != nil)
    }

    @Test func aTestCommandNeedsTheFlag() throws {
        let watch = router(.watch)
        for spec in ControlCommands.answered(by: .watch) where spec.isTestCommand {
            do {
                _ = try watch.handler(for: spec.name)
                Issue.record("\(spec.name) was let through without --enable-test-commands")
            } catch {
                #expect(error.exitStatus == 2)
                #expect(error.message.contains("--enable-test-commands"))
            }
        }
        watch.testCommandsEnabled = true
        #expect((try? watch.handler(for: "fail-next")) != nil)
    }

    @Test func theSessionsCommandsWaitForActivation() {
        let phone = router(.phone)
        var activated = false
        phone.sessionIsActivated = { activated }
        for spec in ControlCommands.answered(by: .phone) where spec.needsActivatedSession {
            do {
                _ = try phone.handler(for: spec.name)
                Issue.record("\(spec.name) ran before activation")
            } catch {
                #expect(error.wcError?.code == .sessionNotActivated)
            }
        }
        #expect((try? phone.handler(for: "status")) != nil)  // not the session's API: answered at once
        activated = true
        #expect((try? phone.handler(for: "transfer-userinfo")) != nil)
    }

    @Test func anUnregisteredCommandIsNamedNotDropped() {
        let phone = ControlRouter(server: .phone)
        phone.on(ControlCommands.Status.self) { _ in throw ControlError("unused") }
        #expect(phone.unregistered.contains("logbook"))
        #expect(!phone.unregistered.contains("status"))
        #expect(throws: ControlError.self) { try phone.handler(for: "logbook") }
    }
}
