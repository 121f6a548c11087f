import ArgumentParser
import DBus

/// `schemebridge monitor`: prints the service's signals as they come.
struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print URLHandled, URLFailed and HandlersChanged signals as they come (until interrupted).",
        discussion: "Text lines are for people; use --json for one JSON object a line.")

    @OptionGroup var client: ClientOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let service = try client.client()
        do {
            try service.connection.addMatch(MatchRule(interface: ServiceClient.interface, path: ServiceClient.objectPath))
            // Starts the service (bus activation) so that it reports changes from now on.
            _ = try service.property("Version")
        } catch {
            throw ServiceClient.report(error, "cannot monitor the SchemeBridge service")
        }
        if !output.json { Terminal.error("monitoring \(ServiceClient.busName.rawValue); interrupt to stop") }
        do {
            while let message = try service.connection.nextSignal() {
                guard let member = message.member?.rawValue, message.interface == ServiceClient.interface else { continue }
                Terminal.out(output.json ? Self.json(member, message.body) : Self.text(member, message.body))
            }
        } catch {
            if !output.json { Terminal.error("the session bus went away; stopped") }
        }
    }

    static func json(_ member: String, _ body: [DBusValue]) -> String {
        let names: [String]
        switch member {
        case "URLHandled": names = ["url", "scheme", "handler", "details"]
        case "URLFailed": names = ["url", "error", "message"]
        case "HandlersChanged": names = ["schemes"]
        default: names = []
        }
        var members: [(String, JSON.Value)] = [("signal", .string(member))]
        for (i, v) in body.enumerated() { members.append((i < names.count ? names[i] : "arg\(i)", JSON.value(v))) }
        return JSON.text(.object(members))
    }

    static func text(_ member: String, _ body: [DBusValue]) -> String {
        switch member {
        case "URLHandled":
            var line = "URLHandled \(Open.shown(body.first?.string ?? "")) handler=\(body.count > 2 ? body[2].string ?? "" : "")"
            if body.count > 3, let details = body[3].stringDictionary {
                for key in details.keys.sorted() {
                    let v = details[key]!.unwrapped
                    let shown: String
                    switch v {
                    case .string(let s): shown = s.isEmpty ? "\"\"" : Open.shown(s)
                    default: shown = JSON.text(JSON.value(v))
                    }
                    line += " \(key)=\(shown)"
                }
            }
            return line
        case "URLFailed":
            return "URLFailed \(Open.shown(body.first?.string ?? "")) \(body.count > 1 ? body[1].string ?? "" : ""): \(body.count > 2 ? Open.shown(body[2].string ?? "") : "")"
        case "HandlersChanged":
            return "HandlersChanged " + (body.first?.stringList ?? []).joined(separator: " ")
        default:
            return member + " " + JSON.text(.array(body.map(JSON.value)))
        }
    }
}
