import ArgumentParser
import DBus
import SchemeBridgeContract

/// `schemebridge monitor`: prints the service's signals as they come.
struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print URLHandled, URLFailed and HandlersChanged signals as they come (until interrupted).",
        discussion: """
            Text lines are for people; use --json for one JSON object a line. It shows what any program of the \
            session may see: URLs as the service broadcasts them, without userinfo, query and fragment (the app \
            that opened a URL gets the full URL sent to it alone), unless the service's config says \
            [Privacy] BroadcastURLs=full; with BroadcastURLs=none it shows no URLHandled or URLFailed at all.
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let service = try client.client()
        let version: Int
        do {
            try service.connection.addMatch(MatchRule(interface: Contract.interface, path: Contract.objectPath))
            // Starts the service (bus activation) so that it reports changes from now on.
            version = Int((try service.property(ContractProperty.version)).integer ?? 0)
        } catch {
            throw ServiceClient.report(error, "cannot monitor the SchemeBridge service")
        }
        if !output.json {
            Terminal.error("monitoring \(Contract.busName.rawValue); interrupt to stop")
            // Version 3 broadcasts URLs without their private parts (what any program may see).
            if version >= 3 { Terminal.error("URLs are shown as broadcast: without userinfo, query and fragment unless [Privacy] BroadcastURLs=full") }
        }
        do {
            while let message = try service.connection.nextSignal() {
                guard let member = message.member?.rawValue, message.interface == Contract.interface else { continue }
                Terminal.out(output.json ? Self.json(member, message.body) : Self.text(member, message.body))
            }
        } catch {
            if !output.json { Terminal.error("the session bus went away; stopped") }
        }
    }

    static func json(_ member: String, _ body: [DBusValue]) -> String {
        let names: [String]
        switch member {
        case URLHandled.member.rawValue: names = ["url", "scheme", "handler", "details"]
        case URLFailed.member.rawValue: names = ["url", "dbus_error", "message"]
        case HandlersChanged.member.rawValue: names = ["schemes"]
        default: names = []
        }
        var members: [(String, JSON.Value)] = [("signal", .string(member))]
        for (i, v) in body.enumerated() { members.append((i < names.count ? names[i] : "arg\(i)", JSON.value(v))) }
        return JSON.text(.object(members))
    }

    static func text(_ member: String, _ body: [DBusValue]) -> String {
        if let handled = URLHandled(arguments: body), member == URLHandled.member.rawValue {
            var line = "URLHandled \(Open.shown(handled.url)) handler=\(handled.handler)"
            for key in handled.details.keys.sorted() {
                let v = handled.details[key]!
                let shown: String
                switch v {
                case .string(let s): shown = s.isEmpty ? "\"\"" : Open.shown(s)
                default: shown = JSON.text(JSON.value(v))
                }
                line += " \(key)=\(shown)"
            }
            return line
        }
        if let failed = URLFailed(arguments: body), member == URLFailed.member.rawValue {
            return "URLFailed \(Open.shown(failed.url)) \(failed.errorName): \(Open.shown(failed.message))"
        }
        if let changed = HandlersChanged(arguments: body), member == HandlersChanged.member.rawValue {
            return "HandlersChanged " + changed.schemes.joined(separator: " ")
        }
        return member + " " + JSON.text(.array(body.map(JSON.value)))
    }
}
