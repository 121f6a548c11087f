import DBus
import LinuxSystem
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import ServiceLifecycle
import Glibc

/// `schemebridged`: the SchemeBridge session service.
@main
enum Daemon {
    static func main() {
        let usage = DaemonOptions.usage(busName: Contract.busName.rawValue)
        switch DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()), usage: usage, versionText: Release.versionText(program: "schemebridged")) {
        case .print(let text):
            writeAll(1, text)
            exit(0)
        case .usageError(let message):
            writeAll(2, "Error: \(message)\n" + usage)
            exit(64)
        case .checkConfig:
            let check = ConfigCheck(environment: ProcessEnvironment.current())
            writeAll(1, check.report)
            exit(check.status)
        case .run(let options):
            // Not an `async` main: its dispatch_main ends the main thread with pthread_exit, which loads libgcc_s at every start.
            Task.detached { exit(await run(options)) }
            ChildReaper.parkBlockingChildSignals()
        }
    }

    /// Writes all of `text` to `fd` (standard output or error), as far as the descriptor takes it.
    static func writeAll(_ fd: Int32, _ text: String) { try? FileDescriptor.lending(fd) { d throws(Errno) in try d.writeAll(Array(text.utf8)) } }

    /// Runs the service; returns the exit status.
    static func run(_ options: DaemonOptions) async -> Int32 {
        let level = Logger.Level(rawValue: options.logLevel) ?? .info
        let journal = JournalLine.standardErrorIsJournal(getenv("JOURNAL_STREAM").map { String(cString: $0) })
        LoggingSystem.bootstrap { label in
            var handler = JournalLogHandler(label: label, journal: journal)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "schemebridged")
        guard let busAddress = options.address ?? Connection.processSessionBusAddress() else {
            logger.critical("no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus; pass --address or run inside a desktop session (or `dbus-run-session -- schemebridged`)")
            return 1
        }
        let service = SchemeBridgeService(address: busAddress, replace: options.replace, environment: ProcessEnvironment.current(),
                                    policyOverrides: options.policyOverrides, logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: LifecycleServices.name(of: service))],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch let e as StartupError {
            logger.critical("\(e.description)")
            return 1
        } catch {
            logger.critical("\(error)")
            return 1
        }
        return 0
    }
}
