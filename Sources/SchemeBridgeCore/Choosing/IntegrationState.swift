/// What `schemebridge integrate` did to the user's `mimeapps.list`, kept in
/// `$XDG_CONFIG_HOME/schemebridge/integration` so that `disable` undoes exactly that and nothing
/// else: per scheme the line it wrote and the line it replaced (none when it added one), and the
/// few bytes around a `[Default Applications]` group it had to create.
///
/// ```ini
/// [Integration]
/// Enabled=true                 # every non-reserved scheme, new ones as handlers appear
/// LeftOut=bank;                # schemes disabled by name meanwhile (not added again)
/// CreatedFile=false
/// CreatedGroup=true
/// AddedBlankLine=true
/// AddedNewline=false
///
/// [Scheme todolist]
/// Line=x-scheme-handler/todolist=io.github.schemebridge.SchemeBridge.desktop
///
/// [Scheme mailto]
/// Line=x-scheme-handler/mailto=io.github.schemebridge.SchemeBridge.desktop;thunderbird.desktop;
/// Original=x-scheme-handler/mailto=thunderbird.desktop
/// ```
///
/// A line that is not plain UTF-8 text (a stray Latin-1 byte, a NUL, a control character) is
/// kept as `LineHex=`/`OriginalHex=` (its bytes in hexadecimal) instead, so that it reads back
/// byte for byte and the record stays readable.
public struct IntegrationState: Sendable, Equatable {
    /// One scheme's edit.
    public struct Edit: Sendable, Equatable {
        /// The line as written (without its line feed; a CR kept).
        public var line: [UInt8]
        /// The line it replaced, byte for byte; nil when it was added.
        public var original: [UInt8]?
    }

    /// Every non-reserved scheme is routed, and new ones as they appear.
    public var enabled = false
    /// Schemes disabled by name while ``enabled``: not added again.
    public var leftOut: Set<String> = []
    /// The edits, by scheme.
    public var edits: [String: Edit] = [:]
    /// `mimeapps.list` did not exist before the first edit.
    public var createdFile = false
    /// `[Default Applications]` was added by us (at the end of the file).
    public var createdGroup = false
    /// A blank line was put before that group.
    public var addedBlankLine = false
    /// The file's last line had no line feed, and got one.
    public var addedNewline = false

    public init() {}

    static let group = "Integration"
    static let schemePrefix = "Scheme "

    /// The file's text.
    func encoded() -> [UInt8] {
        var text = "# What `schemebridge integrate` added to mimeapps.list; `schemebridge integrate disable` takes exactly this out.\n"
            + "[\(Self.group)]\nEnabled=\(enabled)\nLeftOut=\(KeyFileValue.joinList(leftOut.sorted()))\n"
            + "CreatedFile=\(createdFile)\nCreatedGroup=\(createdGroup)\nAddedBlankLine=\(addedBlankLine)\nAddedNewline=\(addedNewline)\n"
        for scheme in edits.keys.sorted() {
            let edit = edits[scheme]!
            text += "\n[\(Self.schemePrefix)\(scheme)]\n" + Self.field("Line", edit.line)
            if let original = edit.original { text += Self.field("Original", original) }
        }
        return Array(text.utf8)
    }

    /// `key=line`, or `keyHex=` and its bytes in hexadecimal when `line` is not plain text.
    static func field(_ key: String, _ line: [UInt8]) -> String {
        if let text = String(validating: line, as: UTF8.self), !line.contains(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0D) || $0 == 0x7F }) {
            return "\(key)=\(escaped(text))\n"
        }
        return "\(key)Hex=" + line.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "\n"
    }

    /// The bytes of ``field(_:_:)``'s `key` in `g`; nil when it has neither form (or bad hex).
    static func lineBytes(_ key: String, in g: KeyFile.Group) -> [UInt8]? {
        guard let hex = g.string(key + "Hex") else { return g.string(key).map { Array($0.utf8) } }
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }

    /// `line` as a key-file value that reads back byte for byte (every space as `\s`, so none
    /// at either end is trimmed).
    static func escaped(_ line: String) -> String {
        var out = ""
        for ch in KeyFileValue.escape(line) { out += ch == " " ? "\\s" : String(ch) }
        return out
    }

    /// Reads the file's text.
    static func decode(_ bytes: [UInt8], path: String) throws(KeyFileError) -> IntegrationState {
        let file = try KeyFile(bytes: bytes, path: path)
        var s = IntegrationState()
        if let g = file.group(group) {
            s.enabled = g.boolean("Enabled") ?? false
            s.leftOut = Set((g.stringList("LeftOut") ?? []).compactMap { (try? Scheme($0))?.name })
            s.createdFile = g.boolean("CreatedFile") ?? false
            s.createdGroup = g.boolean("CreatedGroup") ?? false
            s.addedBlankLine = g.boolean("AddedBlankLine") ?? false
            s.addedNewline = g.boolean("AddedNewline") ?? false
        }
        for g in file.groups where g.name.hasPrefix(schemePrefix) {
            guard let scheme = try? Scheme(String(g.name.dropFirst(schemePrefix.count))).name, let line = lineBytes("Line", in: g) else { continue }
            s.edits[scheme] = Edit(line: line, original: lineBytes("Original", in: g))
        }
        return s
    }
}
