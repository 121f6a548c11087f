import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The core's ``SandboxedCallerRule`` on the bus: what a Flatpak caller may not learn or change.
extension Bridge {
    /// `sender` as the core knows callers (identified first when new).
    func identifiedCaller(_ sender: String) async -> Caller {
        Self.caller(sender, await callers.caller(sender, connection: connection, registry: registry))
    }

    /// `AccessDenied` when `sender` is sandboxed: `what` is the user's to change, from outside.
    func refuseSandboxed(_ sender: String, _ what: String) async throws(DBusError) {
        let caller = await identifiedCaller(sender)
        guard SandboxedCallerRule.mayAdminister(caller) else {
            throw ContractError.accessDenied("a sandboxed app (\(caller.displayName)) cannot \(what)")
        }
    }

    /// `HandlersForType`: nothing for a sandboxed caller.
    func handlers(forType type: String, sender: String) async -> [String] {
        SandboxedCallerRule.mayListTypeHandlers(await identifiedCaller(sender)) ? handlers(forType: type) : []
    }

    /// `Choices`: a sandboxed caller sees its own only.
    func choices(visibleTo sender: String) async -> [RememberedChoice] {
        let caller = await identifiedCaller(sender)
        return broker.choices.all.filter { SandboxedCallerRule.maySeeChoices(of: $0.caller, by: caller) }
            .map { RememberedChoice(caller: $0.caller, subject: $0.subject, desktopID: $0.desktopID) }
    }

    /// `ForgetChoice`: a sandboxed caller forgets its own choices only.
    func forgetChoice(caller choiceCaller: String, subject: String, sender: String) async throws(DBusError) {
        let caller = await identifiedCaller(sender)
        guard SandboxedCallerRule.maySeeChoices(of: choiceCaller, by: caller) else {
            throw ContractError.accessDenied("a sandboxed app (\(caller.displayName)) can forget its own choices only")
        }
        do throws(OpenFailure) { _ = try await broker.forgetChoice(caller: choiceCaller, subject: subject) } catch { throw DBusError(error) }
    }
}
