import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge integrate enable|disable|status [--scheme S...]`: SchemeBridge as the desktop's
/// handler of URL schemes, so browsers, `xdg-open`, `gio open` and the portal hand links to us.
struct Integrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Route the desktop's links through SchemeBridge (its entry becomes the default in ~/.config/mimeapps.list).",
        discussion: """
            enable: every scheme with a handler that is not reserved (http, https, mailto, …) gets \
            io.github.schemebridge.SchemeBridge.desktop as its default, and new schemes follow as their \
            handlers are installed; with --scheme, exactly those schemes (reserved ones only this way). \
            disable: removes exactly the lines enable wrote (the file is then as it was; a line changed \
            since is left alone); with --scheme, only those. status: what is routed. SchemeBridge itself \
            still opens each URL with the handler that was the default before.
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case enable, disable, status
    }

    @ArgumentParser.Argument(help: ArgumentHelp("enable, disable or status.", valueName: "action"))
    var action: Action

    @Option(name: .long, help: ArgumentHelp("Only this scheme (repeat for more).", valueName: "scheme"))
    var scheme: [String] = []

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if action == .status && !scheme.isEmpty { throw ValidationError("status takes no --scheme") }
    }

    func run() throws {
        let report = try client.withService("cannot \(action.rawValue) the integration") { service throws(DBusError) -> IntegrationReport in
            switch action {
            case .enable:
                let routed = try service.perform(.enableIntegration(scheme))
                if !output.json { for s in routed { Terminal.out("routed: \(s)") } }
            case .disable:
                let given = try service.perform(.disableIntegration(scheme))
                if !output.json { for s in given { Terminal.out("given back: \(s)") } }
            case .status:
                break
            }
            return try service.perform(.integrationStatus)
        }
        if output.json {
            func list(_ l: [String]) -> JSON.Value { .array(l.map { .string($0) }) }
            JSON.out([("enabled", .bool(report.enabled)), ("schemes", list(report.schemes)), ("changed", list(report.changed)),
                      ("not_routed", list(report.notRouted)), ("list", .string(report.list))])
            return
        }
        if action == .status || !report.changed.isEmpty {
            Terminal.out("integration: \(report.enabled ? "on (new schemes are routed as handlers appear)" : "off") — \(report.list)")
            Terminal.out("routed through SchemeBridge: \(report.schemes.isEmpty ? "none" : report.schemes.joined(separator: " "))")
            if !report.changed.isEmpty { Terminal.out("changed since (left alone): \(report.changed.joined(separator: " "))") }
            if !report.notRouted.isEmpty { Terminal.out("not routed: \(report.notRouted.joined(separator: " "))") }
        }
    }
}
