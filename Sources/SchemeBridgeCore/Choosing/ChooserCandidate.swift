/// An application offered in a chooser: its desktop id, its name and its icon as the entry
/// gives them.
public struct ChooserCandidate: Sendable, Equatable {
    public var desktopID: String
    /// `Name=` (localized), else the desktop id.
    public var name: String
    /// `Icon=` (a theme name or an absolute path), `""` when none.
    public var icon: String

    public init(desktopID: String, name: String, icon: String) {
        self.desktopID = desktopID
        self.name = name
        self.icon = icon
    }

    /// The candidate for `entry`.
    public init(_ entry: DesktopEntry) {
        self.init(desktopID: entry.id, name: entry.name ?? entry.id, icon: entry.icon ?? "")
    }

    /// Whether a chooser may be shown this candidate: a desktop id that starts with `-` is
    /// refused (a chooser program that passes ids as arguments would take it as an option).
    public var isOfferable: Bool { !desktopID.hasPrefix("-") && !desktopID.isEmpty }

    /// The candidates a chooser is shown: those ``isOfferable``, in order.
    public static func offerable(_ candidates: [ChooserCandidate]) -> [ChooserCandidate] {
        candidates.filter(\.isOfferable)
    }
}

/// What a chooser answered.
public enum ChooserAnswer: Sendable, Equatable {
    /// The user picked `desktopID`; `always`: remember it for this caller.
    case picked(String, always: Bool)
    /// Nothing was picked (cancelled, closed, timed out); `reason` says which, for a person.
    case cancelled(reason: String)
    /// The dialog could not be shown or failed: an error for the caller (`NoChooser`), never a
    /// cancel, so nothing is silently left unopened; `reason` says what happened.
    case failed(reason: String)
}

/// The line protocol of a chooser program (`[Chooser] Command=` and the shipped
/// `schemebridge-chooser`): candidates on stdin, one `desktop-id<TAB>name<TAB>icon` line each
/// (tabs and line breaks in a name become spaces); the chosen desktop id on stdout, optionally
/// followed by a TAB and `always`. Nothing printed, exit status 1, or an end by a signal, is a
/// cancel; any other non-zero exit (2: the dialog could not be shown; 127: none installed) is the
/// chooser's failure.
///
/// No field of a line starts with `-`, so a chooser that hands them to a dialog as arguments
/// never passes an entry's text as an option (`Name=--display=:9`): a candidate whose id starts
/// with `-` is left out, and a name or icon that does gets a space before it.
public enum ChooserLines {
    /// The program's stdin for `candidates`.
    public static func input(_ candidates: [ChooserCandidate]) -> [UInt8] {
        var out: [UInt8] = []
        for c in ChooserCandidate.offerable(candidates) {
            out += Array(field(c.desktopID).utf8) + [0x09] + Array(field(c.name).utf8) + [0x09] + Array(field(c.icon).utf8) + [0x0A]
        }
        return out
    }

    /// A share sheet's stdin: `id<TAB>name<TAB>icon<TAB>kind` per candidate (`kinds` in the
    /// candidates' order: `app`, `device` or `builtin`).
    public static func input(_ candidates: [ChooserCandidate], kinds: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for (c, kind) in zip(candidates, kinds) where c.isOfferable {
            out += Array(field(c.desktopID).utf8) + [0x09] + Array(field(c.name).utf8) + [0x09] + Array(field(c.icon).utf8) + [0x09] + Array(field(kind).utf8) + [0x0A]
        }
        return out
    }

    /// The answer in a finished program's `output` and exit `status`.
    public static func answer(status: Int32, output: [UInt8]) -> ChooserAnswer {
        guard status == 0 else {
            // 128 + the signal (at most 64 on Linux) is an end by a signal; 255 is a program's own failure.
            if status > 128 && status <= 128 + 64 { return .cancelled(reason: "the chooser was killed by signal \(status - 128)") }
            if status == 1 { return .cancelled(reason: "the chooser was cancelled") }
            return .failed(reason: "the chooser failed (exit status \(status)); the service's log has its message")
        }
        let line = output.split(separator: 0x0A, omittingEmptySubsequences: true).first ?? []
        let fields = line.split(separator: 0x09, omittingEmptySubsequences: false).map { trimmed(String(decoding: $0, as: UTF8.self)) }
        guard let id = fields.first, !id.isEmpty else { return .cancelled(reason: "the chooser was closed without a choice") }
        return .picked(id, always: fields.count > 1 && fields[1] == "always")
    }

    /// `text` without leading and trailing spaces and a trailing CR.
    static func trimmed(_ text: String) -> String {
        var s = Substring(text)
        while let c = s.first, c == " " { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\r" { s = s.dropLast() }
        return String(s)
    }

    /// `text` without tabs, line breaks or other control characters (they become spaces), with a
    /// space before it when it starts with `-`.
    static func field(_ text: String) -> String {
        let plain = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
        return plain.hasPrefix("-") ? " " + plain : plain
    }
}
