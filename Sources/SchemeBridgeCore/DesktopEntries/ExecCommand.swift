/// Why an `Exec` value was refused (the entry is then not eligible).
public enum ExecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `Exec` is empty or only spaces.
    case empty
    /// A `"` is never closed.
    case unterminatedQuote
    /// The value ends with a lone `\` outside quotes.
    case trailingBackslash
    /// A reserved character that we will not guess the meaning of appears unquoted (only `'`:
    /// the spec has no single-quote rule, and guessing shell rules would mis-split).
    case unquotedReservedCharacter(String)
    /// A `%` followed by a letter that is not a field code of the spec (or by nothing).
    case unknownFieldCode(String)
    /// More than one of `%f %F %u %U` (the spec allows at most one).
    case multipleURLFieldCodes
    /// The program (first argument) contains `=` or a field code.
    case invalidProgram(String)

    public var description: String {
        switch self {
        case .empty: return "Exec is empty"
        case .unterminatedQuote: return "Exec has an unterminated double quote"
        case .trailingBackslash: return "Exec ends with a lone backslash"
        case .unquotedReservedCharacter(let c):
            return "Exec contains an unquoted \(c); quote the argument with double quotes"
        case .unknownFieldCode(let code):
            return "Exec contains the unknown field code %\(code); use %% for a literal percent sign"
        case .multipleURLFieldCodes:
            return "Exec contains more than one of %f, %F, %u, %U"
        case .invalidProgram(let program):
            return "Exec program '\(program)' must not contain '=' or a field code"
        }
    }
}

/// Values that field codes other than the URL ones expand to.
public struct ExecContext: Sendable, Equatable {
    /// `Icon` (for `%i`).
    public var icon: String?
    /// The localized `Name` (for `%c`).
    public var name: String?
    /// The desktop file's path (for `%k`).
    public var desktopFilePath: String?

    public init(icon: String? = nil, name: String? = nil, desktopFilePath: String? = nil) {
        self.icon = icon
        self.name = name
        self.desktopFilePath = desktopFilePath
    }
}

/// An `Exec` command line parsed per the Desktop Entry spec 1.5 ("The Exec key"), ready to be
/// expanded for URLs without ever being re-split.
///
/// Parsing takes the value after key-file unescaping (``KeyFileValue/unescape(_:)``) and:
/// 1. splits it on unquoted spaces (tabs and newlines also separate);
/// 2. undoes double quotes: inside `"…"`, `\"`, `` \` ``, `\$` and `\\` stand for the character;
///    any other backslash is literal. A quote may start mid-argument (`--name="a b"`).
///    Outside quotes `\x` stands for `x` (as real files such as Wine's rely on); an unquoted `'`
///    makes the command invalid; other reserved characters (`> < ~ | & ; $ * ? # ( )` and
///    backtick) are plain characters — SchemeBridge never runs a shell, so they are inert;
/// 3. reads field codes in each unquoted argument: `%u %U %f %F %i %c %k %%`; the deprecated
///    `%d %D %n %N %v %m` are removed (an argument made only of them disappears); any other `%x`
///    makes the command invalid. At most one of `%f %F %u %U` may appear.
///
/// Expansion (``argumentVectors(for:context:)``):
/// - `%u` (and `%f`) expand in place, inside the one argument they are in: `--url=%u` gives
///   `--url=<URL>`; the URL is never split, whatever it contains. Several URLs give one command
///   per URL.
/// - `%U` / `%F` standing alone as an argument become one argument per URL in one command; when
///   embedded in a larger argument they act like `%u` / `%f`.
/// - `%f` / `%F`: a local `file:` URL becomes its decoded path; any other URL is passed as the URL
///   itself (GLib would drop it, see docs/REGISTRY.md).
/// - `%i` alone becomes `--icon <Icon>` (two arguments) or nothing without an Icon; embedded, it
///   becomes the Icon value. `%c` is the localized Name, `%k` the desktop file path.
/// - With no URL field code the URL is appended as the last argument (one command per URL).
public struct ExecCommand: Sendable, Equatable {
    enum Segment: Sendable, Equatable {
        case text(String)
        case url(file: Bool)
        case name
        case desktopFile
        case iconValue
    }

    enum Argument: Sendable, Equatable {
        case pieces([Segment])
        case urlList(file: Bool)
        case icon
    }

    let arguments: [Argument]

    /// The program: a path or a name looked up in `PATH` by the launcher.
    public let program: String

    /// Whether the command takes the URL through a field code (otherwise it is appended).
    public var hasURLFieldCode: Bool {
        arguments.contains { arg in
            switch arg {
            case .urlList: return true
            case .icon: return false
            case .pieces(let segs): return segs.contains { if case .url = $0 { return true } else { return false } }
            }
        }
    }

    /// Whether an argument holds `%k` (the desktop file's path): without it, the path need not be
    /// made for ``ExecContext``.
    public var namesDesktopFile: Bool {
        arguments.contains { arg in
            guard case .pieces(let segs) = arg else { return false }
            return segs.contains { if case .desktopFile = $0 { return true } else { return false } }
        }
    }

    /// Whether one process receives every URL (`%U` / `%F` alone).
    public var takesURLList: Bool {
        arguments.contains { if case .urlList = $0 { return true } else { return false } }
    }

    /// Parses an unescaped `Exec` value.
    /// - Throws: ``ExecError`` when the value is not a valid command line.
    public init(_ exec: String) throws(ExecError) {
        let tokens = try ExecCommand.tokenize(Array(exec.utf8))
        guard !tokens.isEmpty else { throw .empty }
        var arguments: [Argument] = []
        var urlCodes = 0
        for (index, token) in tokens.enumerated() {
            let parsed = try ExecCommand.fieldCodes(token)
            urlCodes += parsed.urlCodes
            if index == 0 {
                guard case .pieces(let segs) = parsed.argument ?? .pieces([]), segs.count <= 1,
                      segs.allSatisfy({ if case .text = $0 { return true } else { return false } }) else {
                    throw .invalidProgram(String(decoding: token, as: UTF8.self))
                }
                let program: String
                if case .text(let t) = segs.first { program = t } else { program = "" }
                guard !program.isEmpty, !program.contains("=") else {
                    throw .invalidProgram(String(decoding: token, as: UTF8.self))
                }
            }
            if let arg = parsed.argument { arguments.append(arg) }
        }
        if urlCodes > 1 { throw .multipleURLFieldCodes }
        guard case .pieces(let first) = arguments[0], case .text(let program) = first[0] else { throw .empty }
        self.program = program
        self.arguments = arguments
    }

    static func tokenize(_ bytes: [UInt8]) throws(ExecError) -> [[UInt8]] {
        var tokens: [[UInt8]] = []
        var current: [UInt8] = []
        var inToken = false
        var inQuote = false
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if inQuote {
                if c == UInt8(ascii: "\"") {
                    inQuote = false
                } else if c == UInt8(ascii: "\\") {
                    guard i < bytes.count else { throw .unterminatedQuote }
                    let n = bytes[i]
                    if n == UInt8(ascii: "\"") || n == UInt8(ascii: "`") || n == UInt8(ascii: "$") || n == UInt8(ascii: "\\") {
                        current.append(n)
                        i += 1
                    } else {
                        current.append(c)
                    }
                } else {
                    current.append(c)
                }
                continue
            }
            switch c {
            case 0x20, 0x09, 0x0A:
                if inToken {
                    tokens.append(current)
                    current = []
                    inToken = false
                }
            case UInt8(ascii: "\""):
                inQuote = true
                inToken = true
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { throw .trailingBackslash }
                current.append(bytes[i])
                i += 1
                inToken = true
            case UInt8(ascii: "'"):
                throw .unquotedReservedCharacter("'")
            default:
                current.append(c)
                inToken = true
            }
        }
        if inQuote { throw .unterminatedQuote }
        if inToken { tokens.append(current) }
        return tokens
    }

    static func fieldCodes(_ token: [UInt8]) throws(ExecError) -> (argument: Argument?, urlCodes: Int) {
        if token.count == 2 && token[0] == UInt8(ascii: "%") {
            switch token[1] {
            case UInt8(ascii: "U"): return (.urlList(file: false), 1)
            case UInt8(ascii: "F"): return (.urlList(file: true), 1)
            case UInt8(ascii: "i"): return (.icon, 0)
            default: break
            }
        }
        var segments: [Segment] = []
        var text: [UInt8] = []
        var urlCodes = 0
        var sawDeprecated = false
        func flush() {
            if !text.isEmpty {
                segments.append(.text(String(decoding: text, as: UTF8.self)))
                text.removeAll()
            }
        }
        var i = 0
        while i < token.count {
            let b = token[i]
            i += 1
            guard b == UInt8(ascii: "%") else {
                text.append(b)
                continue
            }
            guard i < token.count else { throw .unknownFieldCode("") }
            let code = token[i]
            i += 1
            switch code {
            case UInt8(ascii: "%"): text.append(b)
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                flush(); segments.append(.url(file: false)); urlCodes += 1
            case UInt8(ascii: "f"), UInt8(ascii: "F"):
                flush(); segments.append(.url(file: true)); urlCodes += 1
            case UInt8(ascii: "c"): flush(); segments.append(.name)
            case UInt8(ascii: "k"): flush(); segments.append(.desktopFile)
            case UInt8(ascii: "i"): flush(); segments.append(.iconValue)
            case UInt8(ascii: "d"), UInt8(ascii: "D"), UInt8(ascii: "n"), UInt8(ascii: "N"),
                 UInt8(ascii: "v"), UInt8(ascii: "m"):
                sawDeprecated = true
            default:
                // Show the whole character even if it is not ASCII.
                var end = i
                while end < token.count && (token[end] & 0xC0) == 0x80 { end += 1 }
                throw .unknownFieldCode(String(decoding: token[(i - 1)..<end], as: UTF8.self))
            }
        }
        flush()
        if segments.isEmpty && sawDeprecated { return (nil, 0) }
        return (.pieces(segments), urlCodes)
    }

    /// The argument vectors to run for `urls`: one per process (several when the command takes
    /// one URL at a time). Each URL is exactly one argument (or part of exactly one argument).
    /// As text: a file name that is not UTF-8 shows U+FFFD here; ``argumentByteVectors(for:context:)``
    /// is what is run.
    public func argumentVectors(for urls: [SchemeURL], context: ExecContext = ExecContext()) -> [[String]] {
        argumentByteVectors(for: urls, context: context).map { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// ``argumentVectors(for:context:)`` as the bytes to run: `%f`/`%F` give a local file's path
    /// exactly as the kernel names the file, UTF-8 or not (`file:///photo-%E9t%E9.png` is the
    /// path `/photo-\xE9t\xE9.png`).
    public func argumentByteVectors(for urls: [SchemeURL], context: ExecContext = ExecContext()) -> [[[UInt8]]] {
        if urls.isEmpty { return [expand(url: nil, all: [], context: context)] }
        if takesURLList { return [expand(url: nil, all: urls, context: context)] }
        if hasURLFieldCode { return urls.map { expand(url: $0, all: [$0], context: context) } }
        return urls.map { expand(url: nil, all: [], context: context) + [Array($0.string.utf8)] }
    }

    private static func value(of url: SchemeURL, file: Bool) -> [UInt8] {
        file ? (url.localFilePathBytes ?? Array(url.string.utf8)) : Array(url.string.utf8)
    }

    private func expand(url: SchemeURL?, all: [SchemeURL], context: ExecContext) -> [[UInt8]] {
        var argv: [[UInt8]] = []
        for arg in arguments {
            switch arg {
            case .urlList(let file):
                argv.append(contentsOf: all.map { ExecCommand.value(of: $0, file: file) })
            case .icon:
                if let icon = context.icon, !icon.isEmpty { argv.append(contentsOf: [Array("--icon".utf8), Array(icon.utf8)]) }
            case .pieces(let segments):
                if segments.count == 1, case .url = segments[0], url == nil { continue }
                var s: [UInt8] = []
                for seg in segments {
                    switch seg {
                    case .text(let t): s += t.utf8
                    case .url(let file): if let url { s += ExecCommand.value(of: url, file: file) }
                    case .name: s += (context.name ?? "").utf8
                    case .desktopFile: s += (context.desktopFilePath ?? "").utf8
                    case .iconValue: s += (context.icon ?? "").utf8
                    }
                }
                argv.append(s)
            }
        }
        return argv
    }
}

/// What to spawn for one handler process: argv (never through a shell), the working directory
/// (`Path=`), and environment variables to add to the service's own.
public struct LaunchCommand: Sendable, Equatable {
    /// The argument vector as run, bytes: a file's path is the kernel's name for it, which need
    /// not be UTF-8. `arguments[0]` is the program (a path, or a name to look up in `PATH`).
    public var arguments: [[UInt8]]

    /// The argument vector as text (a byte that is not UTF-8 shows as U+FFFD); setting it sets
    /// ``arguments`` to its UTF-8.
    public var argv: [String] {
        get { arguments.map { String(decoding: $0, as: UTF8.self) } }
        set { arguments = newValue.map { Array($0.utf8) } }
    }
    /// The working directory, from the entry's `Path` key.
    public var workingDirectory: String?
    /// Variables to add to the environment (empty from the core; the launcher adds activation
    /// tokens).
    public var environment: [String: String]

    public init(argv: [String], workingDirectory: String? = nil, environment: [String: String] = [:]) {
        self.init(arguments: argv.map { Array($0.utf8) }, workingDirectory: workingDirectory, environment: environment)
    }

    /// A command of `arguments` as bytes, run exactly so.
    public init(arguments: [[UInt8]], workingDirectory: String? = nil, environment: [String: String] = [:]) {
        self.arguments = arguments
        self.workingDirectory = workingDirectory
        self.environment = environment
    }

    /// This command run through `prefix` (a terminal's command line, before the program).
    public func prefixed(by prefix: [String]) -> LaunchCommand {
        LaunchCommand(arguments: prefix.map { Array($0.utf8) } + arguments, workingDirectory: workingDirectory, environment: environment)
    }
}
