import DBus
import Logging
import ServiceLifecycle

/// Why the service could not start.
struct StartupError: Error, CustomStringConvertible {
    let description: String
}

/// The SchemeBridge session service: connects to the bus, exports its object, then owns
/// its well-known name, and runs until the bus goes away or a shutdown is requested.
struct BridgeService: Service {
    let address: String
    let replace: Bool
    let logger: Logger

    func run() async throws {
        let connection: Connection
        do {
            connection = try await Connection.connect(address: address, logger: logger)
        } catch {
            throw StartupError(description: "cannot connect to the session bus at \(address): \(error.message)")
        }
        try connection.export([BridgeInterface().declaration()], at: Contract.objectPath)
        let flags: RequestNameFlags = replace ? [.doNotQueue, .replaceExisting, .allowReplacement] : [.doNotQueue, .allowReplacement]
        let reply = try await connection.requestName(Contract.busName, flags: flags)
        guard reply == .primaryOwner || reply == .alreadyOwner else {
            connection.close()
            throw StartupError(description: "another process already owns \(Contract.busName) on this bus (use --replace to take it over)")
        }
        logger.info("serving \(Contract.busName) at \(Contract.objectPath) as \(connection.uniqueName)")
        let lost = try await connection.signals(matching: MatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameLost", arg0: Contract.busName.rawValue))
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await connection.waitUntilDisconnected() }
                group.addTask {
                    for await _ in lost {
                        logger.notice("\(Contract.busName) was taken over by another process; exiting")
                        break
                    }
                }
                await group.next()
                group.cancelAll()
                connection.close()
            }
        } onGracefulShutdown: {
            logger.info("shutting down")
            connection.close()
        }
        logger.info("disconnected from the bus; stopped")
    }
}
