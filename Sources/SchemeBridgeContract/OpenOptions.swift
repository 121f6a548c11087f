import DBus

/// The options of `OpenURLWithOptions` (`a{sv}`), typed. Decoding checks every known key's
/// type (a wrong one is `InvalidArgs` naming the key and the type expected); unknown keys are
/// ignored, as D-Bus `a{sv}` conventions expect.
public struct OpenOptions: Sendable, Equatable {
    /// The option keys.
    public enum Key {
        /// `handler` (s): a desktop id to use instead of the default.
        public static let handler = "handler"
        /// `activation-token` (s): handed to the handler (XDG_ACTIVATION_TOKEN, DESKTOP_STARTUP_ID).
        public static let activationToken = "activation-token"
        /// `annotation` (v): handed to a D-Bus activated handler in `platform_data`.
        public static let annotation = "annotation"
        /// `launch-image` (b, default true): whether to show the handler's launch image.
        public static let launchImage = "launch-image"
        /// `scale` (u, i or d): the display scale to pick the launch image for.
        public static let scale = "scale"
        /// `timeout` (u): seconds `OpenURLWithReply` waits for the handler's answer (default 300).
        public static let timeout = "timeout"
        /// `pasteboard` (o or s): a pasteboard of the caller's, by path or name, that the resolved
        /// handler is granted read access to before it starts.
        public static let pasteboard = "pasteboard"
        /// `content-type` (s): `OpenFile` only: the document's type, instead of detecting it.
        public static let contentType = "content-type"
        /// `ask` (b, default false): let the user pick among the eligible handlers (a chooser).
        public static let ask = "ask"
        /// `mode` (s): `OpenFile` only: `copy` (default: a read-only copy in the handler's Inbox)
        /// or `in-place` (the handler gets the file itself, writable only when the descriptor is).
        public static let mode = "mode"
        /// `universal-links-only` (b, default false): `OpenURLWithOptions` only: open only in
        /// the app that holds the link (verified or selected app link), else `NotAppLink`.
        public static let universalLinksOnly = "universal-links-only"
        /// `parent-window` (s): the caller's window a chooser is attached to, as portal dialogs take
        /// it: `x11:XID` (hexadecimal) or `wayland:HANDLE` (exported with xdg-foreign); `""` none.
        public static let parentWindow = "parent-window"
        /// Every key the service reads; values under other keys are skipped unread.
        public static let all: Set<String> = [handler, activationToken, annotation, launchImage, scale, timeout, pasteboard, contentType, ask, mode,
                                              universalLinksOnly, parentWindow]
    }

    /// How `OpenFile` hands the document to its handler (the `mode` option).
    public enum DocumentMode: String, Sendable, Equatable {
        /// A read-only copy in the handler's Inbox (the default).
        case copy
        /// The file itself: its path, or a document portal path for a sandboxed handler;
        /// writable only when the caller's descriptor is open for writing.
        case inPlace = "in-place"
    }

    public var handler: String?
    public var activationToken: String?
    public var annotation: DBusValue?
    public var launchImage = true
    public var scale: Int?
    /// Seconds to wait for a reply (`OpenURLWithReply`).
    public var timeout: UInt32?
    /// The pasteboard to grant the handler (its object path or its name).
    public var pasteboard: String?
    /// `OpenFile`: the document's content type, instead of detecting it.
    public var contentType: String?
    /// Whether the user picks the handler in a chooser (unless `handler` names one).
    public var ask = false
    /// `OpenFile`: how the handler gets the document.
    public var mode: DocumentMode = .copy
    /// Open only in an app that holds the link (app links, version 4).
    public var universalLinksOnly = false
    /// The caller's window a chooser is attached to, as given (the service checks its form).
    public var parentWindow: String?

    /// The default and the longest reply timeouts, in seconds.
    public static let defaultTimeout: UInt32 = 300
    public static let maximumTimeout: UInt32 = 86_400

    public init(handler: String? = nil, activationToken: String? = nil, annotation: DBusValue? = nil,
                launchImage: Bool = true, scale: Int? = nil, timeout: UInt32? = nil, pasteboard: String? = nil, contentType: String? = nil,
                ask: Bool = false, mode: DocumentMode = .copy) {
        self.handler = handler
        self.activationToken = activationToken
        self.annotation = annotation
        self.launchImage = launchImage
        self.scale = scale
        self.timeout = timeout
        self.pasteboard = pasteboard
        self.contentType = contentType
        self.ask = ask
        self.mode = mode
    }

    /// Decodes `dict`. Empty strings count as absent; a token with control characters is dropped;
    /// a scale is rounded and clamped to 1...16.
    public init(decoding dict: [String: DBusValue]) throws(DBusError) {
        handler = try dict.contractString(Key.handler)
        activationToken = try dict.contractString(Key.activationToken)
        annotation = dict[Key.annotation].map(\.unwrapped)
        launchImage = try dict.contractBool(Key.launchImage) ?? true
        ask = try dict.contractBool(Key.ask) ?? false
        universalLinksOnly = try dict.contractBool(Key.universalLinksOnly) ?? false
        if let v = dict[Key.scale]?.unwrapped {
            switch v {
            case .uint32(let n): scale = Int(n)
            case .int32(let n): scale = Int(n)
            case .byte(let n): scale = Int(n)
            case .double(let d) where d.isFinite && d > 0 && d < 100: scale = Int(d.rounded())
            default: throw Self.wrongType(Key.scale, "a number (u, i or d)", v)
            }
            scale = scale.map { min(max($0, 1), 16) }
        }
        timeout = try dict.contractTimeout(Key.timeout)
        if let v = dict[Key.pasteboard]?.unwrapped {
            switch v {
            case .string(let name) where !name.isEmpty: pasteboard = name
            case .string: break
            case .objectPath(let path): pasteboard = path.rawValue
            default: throw Self.wrongType(Key.pasteboard, "a pasteboard's path (o) or name (s)", v)
            }
        }
        if let text = try dict.contractString(Key.mode), !text.isEmpty {
            guard let m = DocumentMode(rawValue: text) else {
                throw DBusError(.invalidArgs, "option mode must be 'copy' or 'in-place', not '\(text.prefix(40))'")
            }
            mode = m
        }
        contentType = try dict.contractString(Key.contentType)
        if contentType?.isEmpty == true { contentType = nil }
        parentWindow = try dict.contractText(Key.parentWindow)
        if handler?.isEmpty == true { handler = nil }
        if let t = activationToken, t.isEmpty || t.utf8.contains(where: { $0 < 0x20 }) { activationToken = nil }
    }

    /// The `a{sv}` form (only what is set).
    public var dictionary: [String: DBusValue] {
        var d: [String: DBusValue] = [:]
        if let handler { d[Key.handler] = .string(handler) }
        if let activationToken { d[Key.activationToken] = .string(activationToken) }
        if let annotation { d[Key.annotation] = annotation }
        if !launchImage { d[Key.launchImage] = .boolean(false) }
        if let scale { d[Key.scale] = .uint32(UInt32(scale)) }
        if let timeout { d[Key.timeout] = .uint32(timeout) }
        if let contentType { d[Key.contentType] = .string(contentType) }
        if ask { d[Key.ask] = .boolean(true) }
        if mode != .copy { d[Key.mode] = .string(mode.rawValue) }
        if universalLinksOnly { d[Key.universalLinksOnly] = .boolean(true) }
        if let parentWindow { d[Key.parentWindow] = .string(parentWindow) }
        if let pasteboard {
            d[Key.pasteboard] = pasteboard.hasPrefix("/") ? ((try? ObjectPath(pasteboard)).map(DBusValue.objectPath) ?? .string(pasteboard)) : .string(pasteboard)
        }
        return d
    }

    static func wrongType(_ key: String, _ expected: String, _ v: DBusValue) -> DBusError {
        DBusError(.invalidArgs, "option '\(key)' must be \(expected), not '\(v.type)'")
    }
}

/// The results of `OpenURLWithOptions` (`a{sv}`).
public struct OpenResults: Sendable, Equatable {
    /// The result keys.
    public enum Key {
        /// `handler` (s): the desktop id that opened the URL.
        public static let handler = "handler"
        /// `pid` (u): the handler's process id, when known.
        public static let pid = "pid"
        /// `launch-image` (s): the image shown, "" when none.
        public static let launchImage = "launch-image"
        /// `content-type` (s): `OpenFile`: the document's type.
        public static let contentType = "content-type"
        /// `path` (s): `OpenFile`: what the handler was given: the copy in its Inbox, the file itself
        /// (`in-place`), or its document portal path (a sandboxed handler).
        public static let path = "path"
    }

    public var handler: String
    public var pid: UInt32?
    public var launchImage: String
    /// `OpenFile` only.
    public var contentType: String?
    /// `OpenFile` only.
    public var path: String?

    public init(handler: String, pid: UInt32? = nil, launchImage: String = "", contentType: String? = nil, path: String? = nil) {
        self.handler = handler
        self.pid = pid
        self.launchImage = launchImage
        self.contentType = contentType
        self.path = path
    }

    /// Reads a results dictionary (missing keys give empty values).
    public init(_ dict: [String: DBusValue]) {
        handler = dict[Key.handler]?.unwrapped.string ?? ""
        pid = dict[Key.pid]?.unwrapped.integer.flatMap { UInt32(exactly: $0) }
        launchImage = dict[Key.launchImage]?.unwrapped.string ?? ""
        contentType = dict[Key.contentType]?.unwrapped.string
        path = dict[Key.path]?.unwrapped.string
    }

    /// The `a{sv}` form.
    public var dictionary: [String: DBusValue] {
        var d: [String: DBusValue] = [Key.handler: .string(handler), Key.launchImage: .string(launchImage)]
        if let pid { d[Key.pid] = .uint32(pid) }
        if let contentType { d[Key.contentType] = .string(contentType) }
        if let path { d[Key.path] = .string(path) }
        return d
    }
}

extension Dictionary where Key == String, Value == DBusValue {
    /// Option `key` as a string; `InvalidArgs` when it is there with another type.
    public func contractString(_ key: String) throws(DBusError) -> String? {
        guard let v = self[key]?.unwrapped else { return nil }
        guard case .string(let s) = v else { throw OpenOptions.wrongType(key, "a string (s)", v) }
        return s
    }

    /// Option `key` as a string, nil when it is absent or empty; `InvalidArgs` when it is there
    /// with another type.
    public func contractText(_ key: String) throws(DBusError) -> String? {
        try contractString(key).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Option `key` as a list of strings (absent: empty); `InvalidArgs` when it is there with another type.
    public func contractStrings(_ key: String) throws(DBusError) -> [String] {
        guard let v = self[key]?.unwrapped else { return [] }
        guard let items = v.arrayElements, case let list = items.compactMap(\.string), list.count == items.count else {
            throw OpenOptions.wrongType(key, "a list of strings (as)", v)
        }
        return list
    }

    /// Option `key` as a boolean; `InvalidArgs` when it is there with another type.
    public func contractBool(_ key: String) throws(DBusError) -> Bool? {
        guard let v = self[key]?.unwrapped else { return nil }
        guard case .boolean(let b) = v else { throw OpenOptions.wrongType(key, "a boolean (b)", v) }
        return b
    }

    /// Option `key` as a timeout: a positive number of seconds, at most
    /// ``OpenOptions/maximumTimeout``; `InvalidArgs` otherwise.
    public func contractTimeout(_ key: String) throws(DBusError) -> UInt32? {
        guard let v = self[key]?.unwrapped else { return nil }
        guard let n = v.integer, n > 0 else { throw OpenOptions.wrongType(key, "a positive number of seconds (u)", v) }
        return UInt32(Swift.min(n, Int64(OpenOptions.maximumTimeout)))
    }
}
