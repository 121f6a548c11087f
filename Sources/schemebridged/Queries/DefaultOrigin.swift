import DBus
import SchemeBridgeContract
import SchemeBridgeCore

extension Queries {
    /// `DefaultHandlerOrigin(subject)`: the default of a scheme (as the caller's query scope may
    /// learn it) or of a content type (a subject with a `/`; none for a sandboxed caller, as
    /// `DefaultHandlerForType`), and the list and level it comes from.
    func defaultHandlerOrigin(_ subject: String, sender: String) async throws -> DefaultHandlerOrigin {
        if subject.contains("/") {
            guard SandboxedCallerRule.mayListTypeHandlers(await callers.caller(sender)),
                  let found = broker.defaultHandlerOrigin(forType: subject) else { return DefaultHandlerOrigin(handler: "", level: "") }
            return Self.reply(found.handler, found.origin, contentType: found.type)
        }
        let found = try await query(sender) { [broker] scope throws(OpenFailure) in try broker.defaultHandlerOrigin(forScheme: subject, scope: scope) }
        guard let found else { return DefaultHandlerOrigin(handler: "", level: "") }
        return Self.reply(found.handler, found.origin, contentType: nil)
    }

    private static func reply(_ handler: String, _ origin: DefaultOrigin, contentType: String?) -> DefaultHandlerOrigin {
        DefaultHandlerOrigin(handler: handler, level: origin.level.rawValue, file: origin.file, desktop: origin.desktop, contentType: contentType)
    }
}
