/// `[Devices] OpenReceived=`: what happens to a file a nearby device sends.
public enum OpenReceived: String, Sendable, Equatable, CaseIterable {
    /// Ask the user which app opens it ("Open in…" with the apps for its type).
    case ask
    /// Open it with the default app for its type.
    case `default`
    /// Leave it where the engine put it.
    case never
}

/// What a device sent, as the engine reports it (KDE Connect's `shareReceived(s)`): a `file://`
/// URL for a file; for text, the path of the file the engine wrote it to (a bare path).
public enum ReceivedShare: Sendable, Equatable {
    /// A file that arrived (its path).
    case file(String)
    /// Text that arrived, in the file at this path.
    case text(String)

    /// The most bytes of received text read to decide whether it is a URL.
    public static let maximumTextBytes = 64 * 1024

    /// Classifies the engine's argument; nil when it names no absolute local path.
    public init?(engineArgument arg: String) {
        if arg.hasPrefix("file://") {
            guard let path = Self.decodedPath(String(arg.dropFirst(7))) else { return nil }
            self = .file(path)
        } else if arg.hasPrefix("/"), !arg.utf8.contains(0) {
            self = .text(arg)
        } else {
            return nil
        }
    }

    /// The path of a `file://` URL's rest (`/…` or `localhost/…`), %-decoded; nil when it is not
    /// a local absolute path or decodes to a NUL.
    static func decodedPath(_ rest: String) -> String? {
        var rest = Substring(rest)
        if rest.hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/") else { return nil }
        guard let out = PercentEncoding.decode(rest.utf8, strict: false) else { return nil }
        guard !out.contains(0), let path = String(validating: out, as: UTF8.self) else { return nil }
        return path
    }

    /// Received text that is one URL (an absolute URL with a scheme, no white space inside) is
    /// that URL; other text is text. `file:` URLs are never opened from a device's text.
    public static func url(inText text: String) -> String? {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty, !trimmed.contains(where: \.isWhitespace),
              let scheme = try? Scheme(String(trimmed.prefix { $0 != ":" })), trimmed.contains(":"),
              scheme.name != "file" else { return nil }
        return trimmed
    }
}

extension String {
    /// Without leading and trailing white space.
    var trimmingWhitespace: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
