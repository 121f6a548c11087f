/// Recognizes a handler command that would hand a URL straight back: to SchemeBridge
/// (`schemebridge open`, which would route it to the same handler again) or to the desktop's
/// default opener (`xdg-open`, `gio open`…, which with SchemeBridge as the default — or this same
/// entry — loops). Such entries are never handlers. What a program does at run time is caught
/// by the service's launch-loop check; this is what the command line alone shows.
public enum LoopSafety {
    /// Programs that only start another program with the rest of their arguments (their own
    /// options and `NAME=value` assignments skipped).
    static let wrappers: Set<String> = ["env", "nice", "nohup", "setsid", "ionice", "chrt", "taskset", "stdbuf", "timeout", "exec", "command", "systemd-run"]
    /// Wrapper options written with their value as the next argument (`nice -n 5`, `env -u X`).
    static let optionsWithValue: [String: Set<String>] = [
        "nice": ["-n", "--adjustment"], "ionice": ["-c", "-n", "-p", "-P", "-u"], "env": ["-u", "--unset", "-C", "--chdir", "-S"],
        "timeout": ["-s", "--signal", "-k", "--kill-after"], "stdbuf": ["-i", "-o", "-e"],
        "systemd-run": ["-u", "--unit", "-p", "--property", "-E", "--setenv", "--slice", "-M", "--machine"],
    ]
    /// Shells whose `-c` script is looked into.
    static let shells: Set<String> = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox"]
    /// Programs that open a URL with the desktop's default application.
    static let desktopOpeners: Set<String> = ["xdg-open", "gvfs-open", "gnome-open", "kde-open", "kde-open5", "kde-open6",
                                              "exo-open", "mimeopen", "handlr", "wslview", "open"]

    /// Whether the argv a URL would get (`argv[0]` the program) hands the URL back.
    public static func handsURLsBack(_ argv: [String]) -> Bool {
        var args = argv[...]
        var hops = 0
        while let first = args.first, hops < 8 {
            hops += 1
            let base = baseName(first)
            if base == "schemebridge" { return args.dropFirst().first == "open" }
            if desktopOpeners.contains(base) { return true }
            if base == "gio" || base == "flatpak-xdg-open" { return base != "gio" || args.dropFirst().first == "open" }
            if shells.contains(base) {
                guard let c = args.firstIndex(of: "-c"), c + 1 < args.endIndex else { return false }
                return scriptHandsBack(args[c + 1])
            }
            guard wrappers.contains(base) else { return false }
            // Skip the wrapper, its options (and an option's value for the few that take one)
            // and env's NAME=value assignments.
            args = args.dropFirst()
            if base == "timeout", let d = args.first, !d.hasPrefix("-") { args = args.dropFirst() }
            while let a = args.first, a.hasPrefix("-") || (base == "env" && a.contains("=")) {
                args = args.dropFirst()
                if Self.optionsWithValue[base]?.contains(a) == true { args = args.dropFirst() }
            }
            if ["taskset", "chrt"].contains(base), let v = args.first, !v.contains("/") { args = args.dropFirst() }
        }
        return false
    }

    /// A shell script that runs `schemebridge open` or a desktop opener anywhere in it.
    static func scriptHandsBack(_ script: String) -> Bool {
        let words = script.split(whereSeparator: { " \t\n;&|()`'\"$".contains($0) }).map { baseName(String($0)) }
        for (i, w) in words.enumerated() {
            if w == "schemebridge", i + 1 < words.count, words[i + 1] == "open" { return true }
            if desktopOpeners.contains(w) && w != "open" { return true }
            if w == "gio", i + 1 < words.count, words[i + 1] == "open" { return true }
        }
        return false
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
