/// How a chooser or the share sheet names the app that asks ("Share from <label>"): a display
/// label, never evidence for anything else (no decision reads it).
///
/// - An app id — a Flatpak's, a launcher's systemd scope (`app-…-ID-….scope`), the app behind our
///   CLI, the one installed entry that runs the caller's executable — is named by that entry's
///   `Name` (the service's locale), else the id itself.
/// - A caller known only by its executable's path is named by the program a person started:
///   when the executable is an interpreter (python, perl, sh, node, …), the script it was given
///   (its file name, from the command line, which the caller wrote: fine for a label), or the
///   module of `python -m MODULE`; otherwise the executable's file name.
/// - An unidentified caller has no label ("").
public enum CallerLabel {
    /// Interpreters by the file name of their executable, without a version (`python3.11`).
    public static let interpreters: Set<String> = [
        "python", "perl", "ruby", "node", "nodejs", "gjs", "lua", "php", "tclsh", "wish", "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish",
    ]
    /// At most this many characters of a label (the sheet cuts further).
    static let limit = 256

    /// The label of caller `id` whose process is `pid` (nil: not known, or it is our CLI's,
    /// whose command line says nothing of the app). `entryName` gives an installed entry's `Name`.
    public static func label(_ id: CallerID?, pid: Int32?, procRoot: String = "/proc", entryName: (DesktopID) -> String?) -> String {
        guard let id else { return "" }
        guard id.kind == .executable else { return clean(id.desktopID.flatMap(entryName) ?? id.text) }
        let program = baseName(id.text)
        guard let pid, isInterpreter(program),
              let cmdline = try? FileSystem.readFile("\(procRoot)/\(pid)/cmdline", limit: CallerAncestry.commandLineLimit) else {
            return clean(program)
        }
        let args = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return clean(script(in: Array(args.dropFirst())) ?? program)
    }

    /// Whether `program` (a file name) is an interpreter: `python3`, `python3.11`, `bash`.
    static func isInterpreter(_ program: String) -> Bool {
        let base = program.prefix { !$0.isNumber && $0 != "." }
        return interpreters.contains(String(base)) && program.dropFirst(base.count).allSatisfy { $0.isNumber || $0 == "." }
    }

    /// The script or module an interpreter's arguments name: the first argument that is not an
    /// option (`-m MODULE`: the module; `-c`, `-e`: none, the interpreter is the program).
    static func script(in args: [String]) -> String? {
        var i = 0
        while i < args.count {
            let a = args[i]
            if a == "-m", i + 1 < args.count { return args[i + 1] }
            if a == "-c" || a == "-e" || a == "--" && i + 1 >= args.count { return nil }
            if a == "--" { return baseName(args[i + 1]) }
            if !a.hasPrefix("-") { return baseName(a) }
            i += 1
        }
        return nil
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Control characters become spaces; at most ``limit`` characters.
    static func clean(_ text: String) -> String {
        String(String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) }).prefix(limit))
    }
}
