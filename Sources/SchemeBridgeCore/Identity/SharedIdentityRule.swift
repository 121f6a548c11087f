/// Identities that unrelated programs share, so that nothing keyed on one may decide for the
/// next caller that has it. A caller is known by its app id or its executable
/// (``CallerIdentifier``); for some of them that says nothing about which program asks:
/// - an interpreter, shell or launcher (`python3.11`, `perl`, `node`, `bash`, `env`,
///   `flatpak-spawn`, our own CLI when no app is found behind it, a D-Bus command-line tool): every
///   script the user runs is that executable;
/// - a terminal: everything started in it inherits its systemd scope (`app-…-org.gnome.Terminal-….scope`);
/// - an installed entry that runs only such a program (`python3.11.desktop`, `Exec=/usr/bin/python3.11`):
///   by `Exec` it would name every Python script (its own scope, from the menu, is the same);
/// - no identity at all.
///
/// Such a caller is never offered "always" (`can-remember` false), no remembered choice or
/// `[Routes]` line keyed on its identity decides for it silently (it is asked, or gets the
/// default), and an entry is never found for it by its `Exec` (the rest of the identification
/// goes on: its own scope or the app behind our CLI still count). The sheet names a script by
/// its file name (``CallerLabel``).
public enum SharedIdentityRule {
    /// Programs that run other programs' code, by executable file name (versions such as
    /// `python3.11` included through ``isSharedProgram(_:)``).
    public static let runners: Set<String> = CallerLabel.interpreters.union([
        "python2", "python3", "pypy", "pypy3", "perl5", "env", "flatpak-spawn", "schemebridge",
        "gio", "xdg-open", "sudo", "pkexec", "nohup", "setsid", "timeout", "nice", "xargs", "systemd-run", "bwrap", "dbus-run-session",
        "java", "mono", "dotnet", "deno", "bun", "Rscript", "julia", "erl", "elixir", "guile", "racket", "sbcl", "qjs",
    ])
    /// Terminal emulators, by executable file name.
    public static let terminals: Set<String> = [
        "gnome-terminal", "gnome-terminal-server", "kgx", "gnome-console", "konsole", "xterm", "uxterm", "kitty", "alacritty", "foot", "footclient",
        "tilix", "xfce4-terminal", "terminator", "urxvt", "rxvt", "wezterm", "wezterm-gui", "lxterminal", "mate-terminal", "qterminal", "st",
        "terminology", "guake", "yakuake", "tilda", "sakura", "cool-retro-term", "ptyxis", "blackbox", "x-terminal-emulator", "deepin-terminal",
        "io.elementary.terminal", "contour", "ghostty", "rio",
    ]

    /// Whether `program` (an executable's file name) runs code that is not its own: a runner
    /// (with or without a version: `python3.11`, `perl5.36`) or a terminal.
    public static func isSharedProgram(_ program: String) -> Bool {
        if runners.contains(program) || terminals.contains(program) || CallerLabel.isInterpreter(program) { return true }
        let base = program.prefix { !$0.isNumber && $0 != "." && $0 != "-" }
        let rest = program.dropFirst(base.count)
        return runners.contains(String(base)) && !rest.isEmpty && rest.allSatisfy { $0.isNumber || $0 == "." || $0 == "-" }
    }

    /// Whether an installed entry whose `Exec` is `exec` runs only a shared program: a terminal
    /// (whatever its arguments), or a runner given nothing of its own to run (only options and
    /// field codes: `Exec=/usr/bin/python3.11`, `Exec=env %F`), so that by it any script is it.
    public static func entryIsShared(exec: String?) -> Bool {
        guard let exec else { return false }
        let words = exec.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { String($0).trimmingCharacters(in: "\"'") }
        guard let first = words.first else { return false }
        let program = first.split(separator: "/").last.map(String.init) ?? first
        if terminals.contains(program) { return true }
        guard isSharedProgram(program) else { return false }
        return words.dropFirst().allSatisfy { $0.hasPrefix("%") || $0.hasPrefix("-") }
    }

    /// Whether the identity `id` is shared (none is). `entryExec` gives an installed entry's
    /// `Exec` (nil: none installed). A sandboxed caller's Flatpak id is its own, and so is a snap.
    public static func isShared(_ id: CallerID?, sandboxed: Bool = false, entryExec: (DesktopID) -> String?) -> Bool {
        guard let id else { return true }
        if sandboxed { return false }
        switch id.kind {
        case .executable: return isSharedProgram(CallerLabel.baseName(id.text))
        case .snap: return false
        case .app: return entryIsShared(exec: id.desktopID.flatMap(entryExec))
        }
    }
}
