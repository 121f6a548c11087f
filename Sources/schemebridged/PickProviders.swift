import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// Starting a pick's provider with its token: spawned (`SCHEMEBRIDGE_PICK_TOKEN` in its
/// environment; its exit without an answer fails the request), or, for a `DBusActivatable`
/// entry, `org.freedesktop.Application.Activate(platform_data)` with `pick-token` (its
/// leaving the bus fails the request). Who may answer is recorded as for replies.
extension Bridge {
    func startProvider(_ id: String, request: RequestTable.Request, options: PickOptions, caller: Caller) async throws(DBusError) {
        guard let entry = registry.entry(id: id) else {
            throw ContractError.invalidHandler("\(id) is no longer installed")
        }
        var context = LaunchContext(source: caller.appID, activationToken: options.activationToken, startupID: options.activationToken)
        context.pickToken = request.token
        logger.info("asking \(id) for documents for \(caller.displayName)")
        switch ProviderStart.of(entry) {
        case .activate(let busName, let objectPath)?:
            let app = try Self.application(connection, entry, busName: busName, objectPath: objectPath)
            let bus = BusActivation(connection: connection)
            await starter.activating(nil, purpose: .pick, busName: busName, request: request.id, pasteboard: nil, watcher: replies, bus: bus)
            do {
                try await app.activate(platformData: context.platformData.mapValues { .string($0) })
            } catch {
                throw ContractError.launchFailed("\(entry.name ?? id) (\(id)) could not be activated: \(error.name.rawValue): \(error.message)")
            }
            _ = await starter.activated(nil, purpose: .pick, busName: busName, request: request.id, watcher: replies, bus: bus)
        case .spawn(let command)?:
            _ = try Self.adapt { () throws(OpenFailure) in
                try starter.spawn([command], of: entry, url: "", context: context, purpose: .pick, request: request.id, watcher: replies)
            }
        case nil:
            throw ContractError.launchFailed("\(id) has no command to start")
        }
    }
}
