/// One line of `[Routes]`: URLs of `subject` (a scheme, or a content type for documents) opened
/// by a caller whose app id matches `callerPattern` go to `desktopID`, before the defaults.
///
/// ```ini
/// [Routes]
/// mailto from org.mozilla.firefox=org.example.Mail.desktop
/// mailto from org.gnome.Terminal=org.example.Mutt.desktop
/// todolist from org.example.*=org.example.Todo.desktop
/// ```
///
/// The key is `SUBJECT from PATTERN` (a pattern as in `X-SchemeBridge-AllowedCallers`: `*` any
/// run, `?` one character, matched against the whole app id); the first matching line in file
/// order wins. An unidentified caller matches no route.
public struct Route: Sendable, Equatable {
    /// The scheme (lower-case) or content type.
    public var subject: String
    /// The callers it applies to.
    public var callerPattern: String
    /// The handler to use (or share target, or pick provider).
    public var desktopID: ChooserTargetID

    public init(subject: String, callerPattern: String, desktopID: ChooserTargetID) {
        self.subject = subject
        self.callerPattern = callerPattern
        self.desktopID = desktopID
    }

    /// Whether this route applies to `caller` opening `subject`.
    public func applies(to subject: String, caller: CallerID?) -> Bool {
        guard let caller, subject == self.subject else { return false }
        return Policy.matches(callerPattern[...], caller.text[...])
    }

    /// Reads `[Routes]`; lines that cannot be used are ignored with a warning.
    static func parse(_ g: KeyFile.Group, path: String, warnings: inout [String]) -> [Route] {
        var routes: [Route] = []
        for e in g.entries {
            let words = e.key.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count == 3, words[1] == "from", let subject = ChoiceSubject.normalized(String(words[0])) else {
                warnings.append("\(path):\(e.line): [Routes] keys are 'SCHEME from APP-ID-PATTERN' (for example "
                    + "'mailto from org.mozilla.firefox'); '\(e.key)' ignored")
                continue
            }
            let id = KeyFileValue.unescape(e.rawValue)
            guard ChoiceStore.isValidTarget(id, subject: subject) else {
                warnings.append("\(path):\(e.line): '\(id)' is not a desktop id (name.desktop); route ignored")
                continue
            }
            routes.append(Route(subject: subject, callerPattern: String(words[2]), desktopID: ChooserTargetID(id)))
        }
        return routes
    }
}

extension [Route] {
    /// The first route for `caller` opening `subject`, in file order.
    public func first(for subject: String, caller: CallerID?) -> Route? {
        first { $0.applies(to: subject, caller: caller) }
    }
}
