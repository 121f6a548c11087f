/// The terminal a `Terminal=true` handler runs in. In order: `xdg-terminal-exec` (the proposed
/// standard, which honours the user's choice), Debian's `x-terminal-emulator` alternative, then
/// the common terminals by name, each with the option after which it takes a command — the same
/// fallback idea as GLib's, for systems that have neither of the first two.
public enum Terminals {
    /// A terminal program and the arguments that go before the command.
    public struct Candidate: Sendable, Equatable {
        public let program: String
        public let arguments: [String]
    }

    /// The terminals tried, in order.
    public static let known: [Candidate] = [
        Candidate(program: "xdg-terminal-exec", arguments: []),
        Candidate(program: "x-terminal-emulator", arguments: ["-e"]),
        Candidate(program: "kgx", arguments: ["-e"]),
        Candidate(program: "gnome-terminal", arguments: ["--"]),
        Candidate(program: "mate-terminal", arguments: ["-x"]),
        Candidate(program: "xfce4-terminal", arguments: ["-x"]),
        Candidate(program: "tilix", arguments: ["-e"]),
        Candidate(program: "konsole", arguments: ["-e"]),
        Candidate(program: "lxterminal", arguments: ["-e"]),
        Candidate(program: "qterminal", arguments: ["-e"]),
        Candidate(program: "terminator", arguments: ["-x"]),
        Candidate(program: "alacritty", arguments: ["-e"]),
        Candidate(program: "kitty", arguments: []),
        Candidate(program: "foot", arguments: []),
        Candidate(program: "wezterm", arguments: ["start", "--"]),
        Candidate(program: "urxvt", arguments: ["-e"]),
        Candidate(program: "rxvt", arguments: ["-e"]),
        Candidate(program: "xterm", arguments: ["-e"]),
    ]

    /// The argv prefix of the first installed terminal (its path, then its arguments), or nil.
    public static func prefix(searchPath: [String]) -> [String]? {
        for c in known {
            if let path = ProgramLookup.find(c.program, searchPath: searchPath) { return [path] + c.arguments }
        }
        return nil
    }
}
