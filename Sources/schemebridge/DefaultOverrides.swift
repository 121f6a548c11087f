import DBus
import SchemeBridgeContract

/// What `default SCHEME` mentions beside the default (issue 27, item 4): the `[Routes]` lines and
/// remembered choices that open the scheme (or type) with another application for some callers,
/// before the default is asked.
struct DefaultOverrides {
    /// The `[Routes]` lines for the subject, in the service's order.
    var routes: [RememberedChoice]
    /// The remembered choices for the subject.
    var choices: [RememberedChoice]

    /// Asks the service for the routes and choices naming `subject` (compared lowercased, as the
    /// service stores them).
    init(subject: String, service: SchemeBridgeBlockingClient) throws(DBusError) {
        let lowered = subject.lowercased()
        routes = try service.perform(.routes).filter { $0.subject == lowered }
        choices = try service.perform(.choices).filter { $0.subject == lowered }
    }

    /// One line each, for standard error: what overrides the default, for whom.
    var notes: [String] {
        routes.map { "note: a [Routes] line opens it with \($0.desktopID) for callers matching '\($0.caller)', before the default" }
            + choices.map { "note: a remembered choice opens it with \($0.desktopID) for \($0.caller), before the default" }
    }

    /// The `overridden_by` member of `--json`: `[{"kind":"route"|"choice","from":…,"handler":…}]`.
    var json: JSON.Value {
        .array(routes.map { Self.member("route", $0) } + choices.map { Self.member("choice", $0) })
    }

    private static func member(_ kind: String, _ c: RememberedChoice) -> JSON.Value {
        .object([("kind", .string(kind)), ("from", .string(c.caller)), ("handler", .string(c.desktopID))])
    }
}
