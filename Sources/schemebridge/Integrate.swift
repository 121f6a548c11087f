import ArgumentParser
import DBus
import SchemeBridgeContract
import SchemeBridgeCore

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
            still opens each URL with the handler that was the default before. \
            --portal: the same actions for the desktop portal instead (Flatpak apps' links and files): \
            SchemeBridge becomes its AppChooser and FileChooser for this user (portals.conf from xdg-desktop-portal 1.17, \
            the portal's XDG_CURRENT_DESKTOP before) and the types it routes ([Routes], remembered choices, \
            schemes routed by enable; or those named with --scheme) are marked always-ask in the permission \
            store; disable --portal puts every file and entry back as it was.
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case enable, disable, status
    }

    @ArgumentParser.Argument(help: ArgumentHelp("enable, disable or status.", valueName: "action"))
    var action: Action

    @Option(name: .long, help: ArgumentHelp("Only this scheme (repeat for more); with --portal, a scheme or content type to mark always-ask.", valueName: "scheme"))
    var scheme: [String] = []

    @Flag(name: .long, help: "SchemeBridge as the desktop portal's AppChooser and FileChooser for Flatpak apps (docs/GUIDE.md, \"Flatpak apps\").")
    var portal = false

    @Option(name: .long, help: ArgumentHelp("With --portal: the xdg-desktop-portal version to write for (default: asked of the portal).", valueName: "version"))
    var portalVersion: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if action == .status && !scheme.isEmpty { throw ValidationError("status takes no --scheme") }
        if portalVersion != nil && !portal { throw ValidationError("--portal-version goes with --portal") }
        if portal && action == .disable && !scheme.isEmpty { throw ValidationError("disable --portal undoes everything enable --portal did; it takes no --scheme") }
    }

    func run() throws {
        if portal {
            var types: [String] = []
            for s in scheme {
                guard let subject = ChoiceSubject.normalized(s), !ChoiceSubject.isPick(subject) else { throw ValidationError("'\(s)' is neither a scheme nor a content type") }
                types.append(ChoiceSubject.isContentType(subject) ? subject : "x-scheme-handler/" + subject)
            }
            return try IntegratePortal(action: action, types: types, portalVersion: portalVersion, client: client, json: output.json).run()
        }
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
            if action == .status, let line = IntegratePortal.statusLine() { Terminal.out(line) }
        }
    }
}
