/// What a chooser or sheet is told about the question besides the candidates (the daemon passes
/// it in the chooser's environment or the `Chooser1.Choose` context). No chooser is sent a URL:
/// only its scheme (or a document's type), the caller, and for a share the items' types and count.
public struct ChooserPrompt: Sendable, Equatable {
    /// The kind of question: `scheme`, `type` (a document's content type), `pick` (a pick's
    /// provider, `pick:TYPE`) or `share` (a share's target).
    public let kind: String
    /// A share's: the items' types and count (never their data), and the sharing app's token.
    public let share: ShareQuestion?

    /// The prompt for `subject` (a ``ChoiceSubject``), a share's when `share` is given.
    public init(subject: String, share: ShareQuestion? = nil) {
        self.share = share
        if share != nil {
            kind = "share"
        } else if ChoiceSubject.isPick(subject) {
            kind = "pick"
        } else {
            kind = ChoiceSubject.isContentType(subject) ? "type" : "scheme"
        }
    }

    /// The activation token the chooser's window may take focus with: the sharing app's for a
    /// share, else the caller's `activationToken`.
    public func activationToken(caller activationToken: String?) -> String? {
        share?.activationToken ?? activationToken
    }
}

/// What a share sheet is told besides the candidates: the items' types and count, what they
/// are as a person sees them (``ShareItemPreview``: never a data item's bytes beyond a text's
/// first lines) and the sharing app's activation token.
public struct ShareQuestion: Sendable, Equatable {
    public let types: [String]
    public let count: Int
    public let activationToken: String?
    /// The items described, in order (at most ``ShareItemPreview/limit``).
    public let previews: [ShareItemPreview]

    public init(types: [String], count: Int, activationToken: String?, previews: [ShareItemPreview] = []) {
        self.types = types
        self.count = count
        self.activationToken = activationToken
        self.previews = Array(previews.prefix(ShareItemPreview.limit))
    }

    /// A candidate's kind column: `app` for an app's action, `device` for a nearby device,
    /// `builtin` for SchemeBridge's own activities.
    public static func kind(_ id: String) -> String {
        switch ShareTargetID(id) {
        case .action?: return "app"
        case .device?: return "device"
        default: return "builtin"
        }
    }
}

/// The shipped dialog, `schemebridge-dialog` (the share sheet, the chooser, the picker: one
/// program speaking the dialogs' message), and where it is found: in `libexec/schemebridge/`
/// beside the service's `bin/` (as `make install` puts it), beside `schemebridged` itself, then
/// on `PATH`. It needs a display (`DISPLAY` or `WAYLAND_DISPLAY`); one that cannot draw (no GTK)
/// answers `failed` with its reason, which the caller gets as `NoChooser`.
public struct ShippedChooser: Sendable, Equatable {
    /// The program's path.
    public let path: String

    /// The program's name.
    public static let name = "schemebridge-dialog"

    public init(path: String) { self.path = path }

    /// The program to ask with; `ownDirectory`: the directory `schemebridged` runs from.
    /// `NoChooser` (saying what to do) when there is none; `busName`: the `Chooser1` name it suggests.
    public static func find(environment: [String: String], ownDirectory: String?, busName: String) throws(ServiceFailure) -> ShippedChooser {
        guard hasDisplay(environment) else {
            throw ServiceFailure(.noChooser, "no chooser to ask with: the session has no display (DISPLAY or WAYLAND_DISPLAY); configure one "
                + "([Chooser] Command= in ~/.config/schemebridge/config), or run a client of \(busName)")
        }
        let searchPath = ProgramLookup.searchPath(environment: environment)
        let places = ownDirectory.map { own in [XDGDirectories.join(own, "../libexec/schemebridge/" + name), XDGDirectories.join(own, name)] } ?? []
        for candidate in places + [name] {
            if let found = ProgramLookup.find(candidate, searchPath: searchPath) { return ShippedChooser(path: found) }
        }
        throw ServiceFailure(.noChooser, "no chooser to ask with: \(name) is not installed (make install puts it in PREFIX/libexec/schemebridge); "
            + "configure one ([Chooser] Command= in ~/.config/schemebridge/config), or run a client of \(busName)")
    }

    /// Whether the session has a display (X11 or Wayland).
    public static func hasDisplay(_ environment: [String: String]) -> Bool {
        !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    }
}

/// One shared item as the sheet shows it: a file's name, type and size (and a path the dialog
/// may read for its thumbnail: the caller's descriptor under `/proc/<service>/fd/`), a URL, the
/// first lines of a text.
public struct ShareItemPreview: Sendable, Equatable {
    public enum Kind: String, Sendable { case file, url, text, data }
    /// The most items described to a sheet (it shows three names and a count).
    public static let limit = 100
    /// The most bytes of a text shown (its first lines).
    public static let textLimit = 1024

    public var kind: Kind
    public var name: String?
    public var type: String?
    public var size: Int?
    public var path: String?
    public var url: String?
    public var text: String?

    public init(kind: Kind, name: String? = nil, type: String? = nil, size: Int? = nil, path: String? = nil, url: String? = nil, text: String? = nil) {
        self.kind = kind
        self.name = name
        self.type = type
        self.size = size
        self.path = path
        self.url = url
        self.text = text
    }

    /// The first ``textLimit`` bytes of `bytes` as text, cut at the last whole character.
    public static func textStart(_ bytes: some Collection<UInt8>) -> String {
        var head = Array(bytes.prefix(textLimit))
        // Drop a character the cut split (up to 3 continuation bytes and their lead byte).
        for _ in 0..<4 {
            if String(validating: head, as: UTF8.self) != nil { break }
            head.removeLast()
        }
        return String(decoding: head, as: UTF8.self)
    }
}
