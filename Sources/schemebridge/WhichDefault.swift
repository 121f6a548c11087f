import DBus
import SchemeBridgeContract

/// The default level of `schemebridge which`: the sentence saying which `mimeapps.list` (at which
/// level, for which `XDG_CURRENT_DESKTOP` component) names the default, or that none does and the
/// directory order decides — from the service's `DefaultHandlerOrigin`.
enum WhichDefault {
    /// The service's answer; nil from a service older than the method (it is explained then
    /// without the level).
    static func origin(_ subject: String, service: SchemeBridgeBlockingClient) throws(DBusError) -> DefaultHandlerOrigin? {
        do {
            return try service.perform(.defaultHandlerOrigin(subject))
        } catch where error.name == .unknownMethod {
            return nil
        }
    }

    /// Why the default is the default, for `subjectText` ("scheme 'todo'", "type text/plain").
    static func explanation(_ origin: DefaultHandlerOrigin?, subjectText: String, subject: String) -> String {
        guard let origin, !origin.level.isEmpty else {
            return "the default of the \(subjectText): mimeapps.list's [Default Applications], else the first eligible entry in directory order"
        }
        let parent = origin.contentType.map { $0 != subject ? " (the type has no handler of its own: those of its parent \($0) are used)" : "" } ?? ""
        let name = origin.desktop.isEmpty ? "mimeapps.list" : "\(origin.desktop)-mimeapps.list"
        let desktop = origin.desktop.isEmpty ? "" : ", read because XDG_CURRENT_DESKTOP names \(origin.desktop)"
        let level: String
        switch origin.level {
        case "config-home": level = "$XDG_CONFIG_HOME/\(name), the user's own"
        case "config-dirs": level = "$XDG_CONFIG_DIRS/\(name), the system's configuration"
        case "data-home": level = "$XDG_DATA_HOME/applications/\(name), beside the user's applications"
        case "data-dirs": level = "$XDG_DATA_DIRS/applications/\(name), beside the installed applications"
        default:
            return "no mimeapps.list names a default of the \(subjectText)\(parent): the first eligible entry in directory order "
                + "($XDG_DATA_HOME/applications, then each $XDG_DATA_DIRS/applications; by desktop id within one)"
        }
        return "the default of the \(subjectText)\(parent), named in [Default Applications] of \(level) (\(origin.file))\(desktop)"
    }
}
