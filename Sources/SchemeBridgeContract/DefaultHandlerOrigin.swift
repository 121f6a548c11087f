import DBus

/// The reply of `DefaultHandlerOrigin(s subject) → a{sv}` (contract 3, issue 27): the default
/// handler of a scheme or a content type (a subject with a `/`) and where that default comes
/// from — which `mimeapps.list`, at which level, for which `XDG_CURRENT_DESKTOP` component — or
/// `directory-order` when no list names it. Keys not known to a client are ignored (more may
/// come); an empty dictionary means no handler (or none the caller may learn of).
public struct DefaultHandlerOrigin: Sendable, Equatable {
    /// The reply's keys.
    public enum Key {
        /// `handler` (s): the desktop id `DefaultHandler`/`DefaultHandlerForType` answer.
        public static let handler = "handler"
        /// `level` (s): `config-home`, `config-dirs`, `data-home`, `data-dirs` or `directory-order`.
        public static let level = "level"
        /// `file` (s): the `mimeapps.list` naming the handler (absent for directory order).
        public static let file = "file"
        /// `desktop` (s): the `XDG_CURRENT_DESKTOP` component of a `<desktop>-mimeapps.list`, lower-cased.
        public static let desktop = "desktop"
        /// `content-type` (s): for a type, the one along its parent chain whose default it is.
        public static let contentType = "content-type"
    }

    /// The default handler, `""` when none.
    public var handler: String
    /// The level (see ``Key/level``), `""` when none.
    public var level: String
    /// The list's path, `""` for directory order.
    public var file: String
    /// The desktop of a desktop-specific list, `""` otherwise.
    public var desktop: String
    /// For a content type: the type whose default it is (itself or a parent).
    public var contentType: String?

    public init(handler: String, level: String, file: String = "", desktop: String = "", contentType: String? = nil) {
        self.handler = handler
        self.level = level
        self.file = file
        self.desktop = desktop
        self.contentType = contentType
    }

    /// Reads a reply dictionary (missing or mistyped keys read as `""`).
    public init(_ values: [String: DBusValue]) {
        self.init(handler: values[Key.handler]?.unwrapped.string ?? "", level: values[Key.level]?.unwrapped.string ?? "",
                  file: values[Key.file]?.unwrapped.string ?? "", desktop: values[Key.desktop]?.unwrapped.string ?? "",
                  contentType: values[Key.contentType]?.unwrapped.string)
    }

    /// The reply dictionary (empty when there is no handler).
    public var dictionary: [String: DBusValue] {
        guard !handler.isEmpty else { return [:] }
        var d: [String: DBusValue] = [Key.handler: .string(handler), Key.level: .string(level)]
        if !file.isEmpty { d[Key.file] = .string(file) }
        if !desktop.isEmpty { d[Key.desktop] = .string(desktop) }
        if let contentType { d[Key.contentType] = .string(contentType) }
        return d
    }
}

extension ContractCall where Result == DefaultHandlerOrigin {
    /// `DefaultHandlerOrigin(s subject) → a{sv}`: `subject` is a scheme or a content type.
    public static func defaultHandlerOrigin(_ subject: String) -> Self {
        .single(ContractSignature.defaultHandlerOrigin, [.string(subject)]) { v in v.stringDictionary.map(DefaultHandlerOrigin.init) }
    }
}
