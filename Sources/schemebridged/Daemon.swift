import ArgumentParser
import DBus
import Logging
import SchemeBridgeCore
import ServiceLifecycle
import Glibc

/// `schemebridged`: the SchemeBridge session service.
@main
struct Daemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schemebridged",
        abstract: "The SchemeBridge session service: routes custom URL schemes to desktop apps over D-Bus.",
        discussion: """
            Owns io.github.schemebridge.SchemeBridge1 on the session bus. Normally started by \
            D-Bus activation; run it by hand to see its log on stderr.
            """,
        version: "1")

    @Option(name: .long, help: "The bus address (default: $DBUS_SESSION_BUS_ADDRESS, or $DBUS_STARTER_ADDRESS under bus activation).")
    var address: String?

    @Flag(name: .long, help: "Take the bus name over from a running instance.")
    var replace = false

    @Option(name: .long, help: "Launches a second allowed per caller on average; 0 turns the limit off (default 50, or MaxLaunchRate in the config file).")
    var maxLaunchRate: Double?

    @Option(name: .long, help: "Launches a caller may make in a burst (default 100, or LaunchBurst in the config file).")
    var launchBurst: Double?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "schemebridged")
        var environment: [String: String] = [:]
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DBUS_STARTER_ADDRESS"] {
            if let v = getenv(key) { environment[key] = String(cString: v) }
        }
        guard let busAddress = address ?? Connection.sessionBusAddress(in: environment) else {
            logger.critical("no session bus: DBUS_SESSION_BUS_ADDRESS is not set; pass --address or run inside a desktop session (or `dbus-run-session -- schemebridged`)")
            throw ExitCode(1)
        }
        let service = BridgeService(address: busAddress, replace: replace, environment: ProcessEnvironment.current(),
                                    policyOverrides: { [maxLaunchRate, launchBurst] c in
                                        if let maxLaunchRate { c.maxLaunchRate = maxLaunchRate }
                                        if let launchBurst { c.launchBurst = launchBurst }
                                    }, logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch let e as StartupError {
            logger.critical("\(e.description)")
            throw ExitCode(1)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// The process environment as a dictionary (read once, at start).
enum ProcessEnvironment {
    static func current() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                env[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            p += 1
        }
        return env
    }
}
