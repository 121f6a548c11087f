import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge links`: verified app links (issue 41) — which apps claim which hosts and how
/// they hold them (list), which app a link opens in and why (explain), fetching a host's
/// assetlinks.json now (verify), and the user's choice of app for a host (set, unset).
struct LinksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "App links: which app opens which https links, and why.",
        discussion: """
            An app claims hosts with X-SchemeBridge-AppLinks= in its desktop entry; a host endorses it in \
            https://HOST/.well-known/assetlinks.json. Each (app, host) is verified (the host names the app and \
            the entry is not user-writable), selected (your choice: links set) or none (the browser opens it).
            """,
        subcommands: [List.self, Explain.self, Verify.self, SetApp.self, Unset.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every host an installed app claims, with its state.")
        @OptionGroup var client: ClientOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let rows = try client.withService("cannot list the app links") { service throws(DBusError) in try service.perform(.appLinks) }
            if output.json {
                JSON.out([("links", .array(rows.map { r in
                    .object([("app", .string(r.string(AppLinkContract.Key.app))), ("pattern", .string(r.string(AppLinkContract.Key.pattern))),
                             ("host", .string(r.string(AppLinkContract.Key.host))), ("state", .string(r.string(AppLinkContract.Key.state))),
                             ("trusted", .bool(r.bool(AppLinkContract.Key.trusted))),
                             ("paths", .array(r.strings(AppLinkContract.Key.paths).map { .string($0) })),
                             ("evidence", LinksCommand.evidenceJSON(r.evidence))])
                }))])
                return
            }
            for r in rows {
                let paths = r.strings(AppLinkContract.Key.paths)
                Terminal.out("\(r.string(AppLinkContract.Key.pattern))\t\(r.string(AppLinkContract.Key.app))\t\(r.string(AppLinkContract.Key.state))"
                             + (r.bool(AppLinkContract.Key.trusted) ? "" : "\t(user-writable entry)") + (paths.isEmpty ? "" : "\t" + paths.joined(separator: ";")))
            }
        }
    }

    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say which app an https link opens in, how it holds it, and on what evidence.")
        @ArgumentParser.Argument(help: ArgumentHelp("An https URL.", valueName: "url")) var url: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let r = try client.withService("cannot explain \(Open.shown(url))") { service throws(DBusError) in try service.perform(.resolveLink(url)) }
            let app = r.string(AppLinkContract.Key.app)
            if output.json {
                JSON.out([("url", .string(url)), ("host", .string(r.string(AppLinkContract.Key.host))), ("app", app.isEmpty ? .null : .string(app)),
                          ("state", .string(r.string(AppLinkContract.Key.state))),
                          ("claimants", .array(r.strings(AppLinkContract.Key.claimants).map { .string($0) })),
                          ("reason", .string(r.string(AppLinkContract.Key.reason))), ("evidence", LinksCommand.evidenceJSON(r.evidence))])
                return
            }
            Terminal.out(app.isEmpty ? "no app: the browser opens it" : "\(app) (\(r.string(AppLinkContract.Key.state)))")
            Terminal.out("  why: \(r.string(AppLinkContract.Key.reason))")
            let claimants = r.strings(AppLinkContract.Key.claimants)
            if !claimants.isEmpty { Terminal.out("  claimed by: \(claimants.joined(separator: ", "))") }
            LinksCommand.printEvidence(r.evidence)
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fetch a host's assetlinks.json now and show what it endorses.")
        @ArgumentParser.Argument(help: ArgumentHelp("A host an installed app claims.", valueName: "host")) var host: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let r = try client.withService("cannot verify \(host)") { service throws(DBusError) in try service.perform(.verifyLinkHost(host)) }
            if output.json {
                JSON.out([("host", .string(host)), ("evidence", LinksCommand.evidenceJSON(r))])
                return
            }
            LinksCommand.printEvidence(r)
        }
    }

    struct SetApp: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Open a host's links in an app that claims it (state selected).")
        @ArgumentParser.Argument(help: ArgumentHelp("The host.", valueName: "host")) var host: String
        @ArgumentParser.Argument(help: ArgumentHelp("The app's desktop id (with or without .desktop).", valueName: "app")) var app: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try client.withService("cannot choose \(app) for \(host)") { service throws(DBusError) in try service.perform(.setLinkApp(host, app)) }
            if output.json { JSON.out([("host", .string(host)), ("app", .string(app)), ("state", .string("selected"))]) }
        }
    }

    struct Unset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget the app chosen for a host.")
        @ArgumentParser.Argument(help: ArgumentHelp("The host.", valueName: "host")) var host: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try client.withService("cannot forget the app chosen for \(host)") { service throws(DBusError) in try service.perform(.setLinkApp(host, "")) }
            if output.json { JSON.out([("host", .string(host)), ("app", .null)]) }
        }
    }

    /// Evidence as JSON: `{}` when the host was never fetched.
    static func evidenceJSON(_ e: AppLinkAnswer) -> JSON.Value {
        guard !e.values.isEmpty else { return .object([]) }
        var members: [(String, JSON.Value)] = [
            ("source", .string(e.string(AppLinkContract.EvidenceKey.source))), ("address", .string(e.string(AppLinkContract.EvidenceKey.address))),
            ("checked", .number(.init(e.integer(AppLinkContract.EvidenceKey.checked) ?? 0))),
            ("expires", .number(.init(e.integer(AppLinkContract.EvidenceKey.expires) ?? 0))),
            ("status", .number(.init(e.integer(AppLinkContract.EvidenceKey.status) ?? 0))),
            ("apps", .array(e.strings(AppLinkContract.EvidenceKey.apps).map { .string($0) })),
        ]
        let failure = e.string(AppLinkContract.EvidenceKey.failure)
        members.append(("failure", failure.isEmpty ? .null : .string(failure)))
        return .object(members)
    }

    static func printEvidence(_ e: AppLinkAnswer) {
        guard !e.values.isEmpty else {
            Terminal.out("  evidence: none yet (the host's file was never fetched)")
            return
        }
        let failure = e.string(AppLinkContract.EvidenceKey.failure)
        let apps = e.strings(AppLinkContract.EvidenceKey.apps)
        Terminal.out("  fetched: \(e.string(AppLinkContract.EvidenceKey.source)) from \(e.string(AppLinkContract.EvidenceKey.address).isEmpty ? "-" : e.string(AppLinkContract.EvidenceKey.address)) at \(e.integer(AppLinkContract.EvidenceKey.checked) ?? 0) (epoch s), counts until \(e.integer(AppLinkContract.EvidenceKey.expires) ?? 0)")
        Terminal.out(failure.isEmpty ? "  endorses: \(apps.isEmpty ? "no app" : apps.joined(separator: ", "))" : "  failed: \(failure)")
    }
}
