/// The command line of `schemebridged`, parsed by hand: the service has five options, and
/// `swift-argument-parser` would bring FoundationEssentials into the daemon — about 4 MB of
/// code whose pages the service would map (resident memory) and a reflection-heavy parse at
/// every start. The CLI keeps the parser. The daemon turns ``logLevel`` into its logger's level.
public struct DaemonOptions: Equatable, Sendable {
    /// `--address`: the bus address (nil: the session bus as the process finds it).
    public var address: String?
    /// `--replace`: take the bus name over from a running instance.
    public var replace = false
    /// `--max-launch-rate`: launches a second per caller (nil: the config's).
    public var maxLaunchRate: Double?
    /// `--launch-burst`: launches in a burst (nil: the config's).
    public var launchBurst: Double?
    /// `--log-level`: one of ``logLevels``.
    public var logLevel = "info"

    /// The log levels `--log-level` accepts (swift-log's, least severe first).
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// Options with every default.
    public init() {}

    /// What the command line asks for.
    public enum Request: Equatable, Sendable {
        /// Run the service with these options.
        case run(DaemonOptions)
        /// Print this text on stdout and exit 0 (`--help`, `--version`).
        case print(String)
        /// Read the config files as the service does, print what it would warn about, and exit
        /// (`--check-config`, what `schemebridge config check` runs).
        case checkConfig
        /// A usage error: print it (with the usage) on stderr and exit 64, as the parser did.
        case usageError(String)
    }

    /// The usage text, naming the bus name the service owns.
    public static func usage(busName: String) -> String {
        """
        OVERVIEW: The SchemeBridge session service: routes custom URL schemes to desktop apps over D-Bus.

        Owns \(busName) on the session bus. Normally started by D-Bus
        activation; run it by hand to see its log on stderr.

        USAGE: schemebridged [--address <address>] [--replace] [--max-launch-rate <rate>] [--launch-burst <burst>] [--log-level <level>]
               schemebridged --check-config

        OPTIONS:
          --address <address>     The bus address (default: $DBUS_SESSION_BUS_ADDRESS, or $DBUS_STARTER_ADDRESS under bus activation, else the socket $XDG_RUNTIME_DIR/bus).
          --replace               Take the bus name over from a running instance.
          --max-launch-rate <rate>
                                  Launches a second allowed per caller on average; 0 turns the limit off (default 50, or MaxLaunchRate in the config file).
          --launch-burst <burst>  Launches a caller may make in a burst (default 100, or LaunchBurst in the config file).
          --log-level <level>     Log level: trace, debug, info, notice, warning, error, critical. (default: info)
          --check-config          Print what the service would warn about in its config files and exit (1 when there is something).
          --version               Show the version.
          -h, --help              Show help information.

        """
    }

    /// Parses `arguments` (without the program name). `--name value` and `--name=value` both
    /// work. `usage` is printed for `--help`, `versionText` for `--version`.
    public static func parse(_ arguments: [String], usage: String, versionText: String) -> Request {
        var options = DaemonOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            var name = argument
            var inline: String? = nil
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            func value() -> String? {
                if let inline { return inline }
                guard let next = rest.first, !next.hasPrefix("--") else { return nil }
                return rest.popFirst()
            }
            switch name {
            case "-h", "--help":
                return .print(usage)
            case "--version":
                return .print(versionText + "\n")
            case "--check-config":
                return .checkConfig
            case "--replace":
                guard inline == nil else { return .usageError("'--replace' takes no value") }
                options.replace = true
            case "--address":
                guard let v = value() else { return .usageError("Missing value for '--address <address>'") }
                options.address = v
            case "--max-launch-rate", "--launch-burst":
                guard let v = value() else { return .usageError("Missing value for '\(name)'") }
                guard let n = Double(v), n.isFinite, n >= 0 else {
                    return .usageError("The value '\(v)' is invalid for '\(name)': a number of at least 0")
                }
                if name == "--max-launch-rate" { options.maxLaunchRate = n } else { options.launchBurst = n }
            case "--log-level":
                guard let v = value() else { return .usageError("Missing value for '--log-level <level>'") }
                guard logLevels.contains(v) else {
                    return .usageError("The value '\(v)' is invalid for '--log-level <level>': trace, debug, info, notice, warning, error or critical")
                }
                options.logLevel = v
            default:
                return .usageError("Unknown option '\(argument)'")
            }
        }
        return .run(options)
    }

    /// The config overrides the command line asks for (`--max-launch-rate`, `--launch-burst`).
    public var policyOverrides: @Sendable (inout PolicyConfig) -> Void {
        { [maxLaunchRate, launchBurst] c in
            if let maxLaunchRate { c.maxLaunchRate = maxLaunchRate }
            if let launchBurst { c.launchBurst = launchBurst }
        }
    }
}
