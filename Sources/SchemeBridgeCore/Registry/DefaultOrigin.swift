/// Where a default handler comes from: the `mimeapps.list` whose `[Default Applications]` line
/// names it, at which level of the MIME Apps spec's order, or "directory order" when no list
/// names an eligible default (`schemebridge which`, `DefaultHandlerOrigin`; issue 27).
///
/// Levels, highest precedence first (in each directory `<desktop>-mimeapps.list` for each
/// `XDG_CURRENT_DESKTOP` component, in order, before `mimeapps.list`): `$XDG_CONFIG_HOME`, each
/// `$XDG_CONFIG_DIRS`, `$XDG_DATA_HOME/applications`, each `$XDG_DATA_DIRS/applications`. The
/// legacy `defaults.list` is not read (GLib still reads it; the MIME Apps spec replaced it).
public struct DefaultOrigin: Sendable, Equatable {
    /// The level of the list, or directory order.
    public enum Level: String, Sendable, CaseIterable {
        case configHome = "config-home", configDirs = "config-dirs", dataHome = "data-home", dataDirs = "data-dirs"
        case directoryOrder = "directory-order"
    }

    /// The level.
    public var level: Level
    /// The list's path; `""` for directory order.
    public var file: String
    /// The `XDG_CURRENT_DESKTOP` component (lower-cased) of a `<desktop>-mimeapps.list`; `""`
    /// for a plain `mimeapps.list` and for directory order.
    public var desktop: String

    public init(level: Level, file: String = "", desktop: String = "") {
        self.level = level
        self.file = file
        self.desktop = desktop
    }

    /// No list names a default: the first eligible entry in directory order.
    public static let directoryOrder = DefaultOrigin(level: .directoryOrder)

    /// The origin of `handler`: the first list in precedence order (`levels`, the registry's, in
    /// the order of `directories`) whose default line (`defaults`) names it; directory order
    /// when none does. (The resolver's default is the first eligible ID of the first list naming
    /// one; when that one is SchemeBridge itself the handler used is the next one, which an
    /// integrated scheme's line `ours;new` names too.)
    static func find(_ handler: DesktopID, levels: [ResolverLevel], directories: [MimeAppsDirectory],
                     defaults: (MimeAppsList) -> [String]) -> DefaultOrigin {
        for (index, level) in levels.enumerated() {
            for list in level.lists where defaults(list).contains(handler.fileName) {
                let directory = index < directories.count ? directories[index] : MimeAppsDirectory(path: "", applications: nil)
                let kind: Level = switch directory.applications {
                case nil: index == 0 ? .configHome : .configDirs
                case 0: .dataHome
                default: .dataDirs
                }
                let name = list.path.split(separator: "/").last.map(String.init) ?? ""
                let desktop = name == "mimeapps.list" ? "" : String(name.dropLast("-mimeapps.list".count))
                return DefaultOrigin(level: kind, file: list.path, desktop: desktop)
            }
        }
        return .directoryOrder
    }
}

extension Registry {
    /// Where `handler`, the default of `scheme`, comes from (``DefaultOrigin``).
    public func defaultOrigin(of handler: DesktopID, forScheme scheme: String) -> DefaultOrigin {
        let key = Registry.lowercasedASCII(scheme)
        return state.withLock { m in
            let levels = m.reservedRule.applies(to: key) ? m.trustedLevels : m.levels
            return DefaultOrigin.find(handler, levels: levels, directories: m.mimeDirs) { $0.defaults[key] ?? [] }
        }
    }

    /// Where `handler`, the default of content type `type` (the type along a parent chain whose
    /// handlers were used), comes from: a list's line for the type or one of its aliases.
    public func defaultOrigin(of handler: DesktopID, forType type: String) -> DefaultOrigin {
        let names = typeNames(Registry.lowercasedASCII(type)).all
        return state.withLock { m in
            DefaultOrigin.find(handler, levels: m.levels, directories: m.mimeDirs) { list in names.flatMap { list.typeDefaults[$0] ?? [] } }
        }
    }
}
