import DBus
import SchemeBridgeContract
import SchemeBridgeCore
import Synchronization

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
        if entry.dbusActivatable, let name = try? BusName(entry.busName), let path = try? ObjectPath(entry.objectPath) {
            replies.started(request.id, handler: .activating(busName: name.rawValue))
            do {
                _ = try await connection.call(destination: name, path: path, interface: "org.freedesktop.Application", member: "Activate",
                                              [.vardict(context.platformData.mapValues { .string($0) })], timeout: .seconds(25))
            } catch {
                throw ContractError.launchFailed("\(entry.name ?? id) (\(id)) could not be activated: \(error.name.rawValue): \(error.message)")
            }
            await replies.activated(request.id, busName: name.rawValue, pid: await pidOf(name.rawValue))
            return
        }
        guard let command = entry.launchCommands(for: []).first else {
            throw ContractError.launchFailed("\(id) has no command to start")
        }
        let held = Mutex<HandlerProcess?>(nil)
        let (replies, requestID) = (self.replies, request.id)
        do {
            _ = try launcher.spawn(argv: command.argv, environment: context.environment(base: childEnvironment, command: command),
                                   workingDirectory: command.workingDirectory, onStart: { pid in
                                       held.withLock { $0 = HandlerProcess(pid: pid) }
                                   }, onExit: { status in replies.handlerExited(requestID, status: status) })
        } catch {
            throw ContractError.launchFailed("cannot start \(entry.name ?? id) (\(id)): \(error.reason)")
        }
        if let process = held.withLock({ $0 }) { replies.started(request.id, handler: .spawned(process)) }
    }
}
