/// `[Chooser]` in `$XDG_CONFIG_HOME/schemebridge/config`: the program that lets the user pick a
/// handler when an open asks (`ask`), and how long it may take.
///
/// ```ini
/// [Chooser]
/// Command=my-chooser --flag     # split like a desktop entry's Exec (quotes, no shell)
/// Timeout=120                   # seconds; then the chooser is stopped and the open is Cancelled
/// Bus=true                      # ask a client of io.github.schemebridge.Chooser1 (default false)
/// SpareSheet=false              # keep no share sheet started ahead (default true)
/// ```
public struct ChooserSettings: Sendable, Equatable {
    /// The program and its arguments; nil when none is configured (then a `Chooser1` client on
    /// the bus when ``bus`` says so, else the shipped `schemebridge-dialog`).
    public var command: [String]?
    /// Whether a client owning `io.github.schemebridge.Chooser1` is asked (`Bus=true`). Off by
    /// default: any program of the session can own that name first, and it would then pick for
    /// the user (and answer "always") with no dialog at all.
    public var bus = false
    /// Whether the service keeps a shipped share sheet started ahead of the next share
    /// (`SpareSheet=`, default true): python and GTK start in the background, so the sheet shows
    /// at once; it costs a waiting process's memory (docs/CONTRACT.md, "The share sheet").
    public var spareSheet = true
    /// Seconds a chooser may take before it is stopped (and the open is `Cancelled`).
    public var timeout = ChooserSettings.defaultTimeout

    /// `Timeout=`'s default: two minutes, time enough to read the list.
    public static let defaultTimeout = 120
    /// The longest `Timeout=` (a day).
    public static let maximumTimeout = 86_400

    public init(command: [String]? = nil, timeout: Int = ChooserSettings.defaultTimeout, bus: Bool = false) {
        self.command = command
        self.timeout = timeout
        self.bus = bus
    }

    /// Reads `[Chooser]`; what cannot be used is ignored with a warning.
    static func parse(_ g: KeyFile.Group, path: String, over base: ChooserSettings = ChooserSettings(), warnings: inout [String]) -> ChooserSettings {
        var c = base
        for e in g.entries where !["Command", "Timeout", "Bus", "SpareSheet"].contains(e.key) {
            warnings.append("\(path):\(e.line): unknown key '\(e.key)' ignored")
        }
        if let text = g.string("Command"), !text.isEmpty {
            do {
                let argv = try ExecCommand.tokenize(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
                if argv.isEmpty || argv.contains(where: { $0.utf8.contains(0) }) {
                    warnings.append("\(path): [Chooser] Command is empty; ignored")
                } else {
                    c.command = argv
                }
            } catch {
                warnings.append("\(path): [Chooser] Command=\(text) cannot be split into a command line (\(error)); ignored")
            }
        }
        if let s = g.string("Bus") {
            if let v = g.boolean("Bus") { c.bus = v } else {
                warnings.append("\(path): [Chooser] Bus=\(s) is neither true nor false; ignored")
            }
        }
        if let s = g.string("SpareSheet") {
            if let v = g.boolean("SpareSheet") { c.spareSheet = v } else {
                warnings.append("\(path): [Chooser] SpareSheet=\(s) is neither true nor false; ignored")
            }
        }
        if let s = g.string("Timeout") {
            if let v = Int(s), v >= 1, v <= maximumTimeout { c.timeout = v } else {
                warnings.append("\(path): [Chooser] Timeout=\(s) is not a number of seconds from 1 to \(maximumTimeout); ignored")
            }
        }
        return c
    }
}
