import Glibc

/// Who a caller is, from its process id: the app id the desktop knows it by.
///
/// In order: a systemd scope or service named `app-[<launcher>-]<id>[-<random>].scope`
/// (`.service`, `@<random>`) in `/proc/<pid>/cgroup` (the freedesktop/systemd convention for
/// launched apps); a Flatpak's `/.flatpak-info` `[Application] name=`; else the executable's
/// path from `/proc/<pid>/exe`. The result is informational (iOS's `sourceApplication`), not
/// a security credential, and a Flatpak id is no exception: a program of the same user can claim
/// any of them. It can run its own code inside any installed Flatpak
/// (`flatpak run --command=sh --socket=session-bus ID`), build and install a Flatpak of any id in
/// its user installation, enter a user namespace of its own and `chroot` into a directory with
/// its own `/.flatpak-info` (what xdg-desktop-portal reads too; `bwrapinfo.json` and the
/// instance directory are in the user's `$XDG_RUNTIME_DIR`), or start a systemd user scope named
/// `app-flatpak-ID-1.scope`. Only a program already inside a sandbox cannot (Flatpak's seccomp
/// filter refuses new user namespaces), which is all an allow-list can count on.
///
/// Reading these files can block (the caller's root may be a FUSE file system that never
/// answers): call this from a `BlockingThreadPool` (LinuxSystem), never from a shared thread.
public enum CallerIdentity {
    /// The app id of process `pid`, or nil when the process is gone or unreadable.
    /// `procRoot` is `/proc` except in tests.
    public static func appID(pid: Int32, procRoot: String = "/proc") -> String? {
        launcherAppID(pid: pid, procRoot: procRoot) ?? executablePath(pid: pid, procRoot: procRoot)
    }

    /// The identity a launcher gave process `pid`: its Flatpak id, else the app id of its
    /// systemd `app-…` scope or service; nil when it has neither (children inherit both).
    public static func launcherAppID(pid: Int32, procRoot: String = "/proc") -> String? {
        if let flatpak = flatpakID(pid: pid, procRoot: procRoot) { return flatpak }
        if let text = readSmallFile("\(procRoot)/\(pid)/cgroup"), let id = appID(fromCgroup: text) { return id }
        return nil
    }

    /// The app id in a `/proc/<pid>/cgroup` text, if its unit follows the `app-…` naming.
    public static func appID(fromCgroup text: String) -> String? {
        for line in text.split(separator: "\n").reversed() {
            guard let path = line.split(separator: ":", maxSplits: 2).last else { continue }
            for component in path.split(separator: "/").reversed() {
                if let id = appID(fromUnit: String(component)) { return id }
            }
        }
        return nil
    }

    /// `app-gnome-org.example.Todo-1234.scope` → `org.example.Todo`;
    /// `app-org.example.Todo@ab12.service` → `org.example.Todo`; `\x2d` unescapes to `-`.
    public static func appID(fromUnit unit: String) -> String? {
        guard unit.hasPrefix("app-") else { return nil }
        var body: Substring
        if unit.hasSuffix(".scope") {
            body = unit.dropFirst(4).dropLast(6)
        } else if unit.hasSuffix(".service") {
            body = unit.dropFirst(4).dropLast(8)
            if let at = body.firstIndex(of: "@") { body = body[..<at] }
        } else {
            return nil
        }
        var parts = body.split(separator: "-", omittingEmptySubsequences: false)
        if unit.hasSuffix(".scope"), parts.count >= 2 { parts.removeLast() }  // the random suffix
        guard let last = parts.last, !last.isEmpty else { return nil }
        // With a launcher prefix the id is the last part; dashes inside ids are escaped.
        let id = last.replacing("\\x2d", with: "-")
        return id.isEmpty ? nil : String(id)
    }

    static func flatpakID(pid: Int32, procRoot: String) -> String? {
        guard let text = readSmallFile("\(procRoot)/\(pid)/root/.flatpak-info") else { return nil }
        var inApplication = false
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces
            if line.hasPrefix("[") {
                inApplication = line == "[Application]"
            } else if inApplication, line.hasPrefix("name=") {
                let name = line.dropFirst(5).trimmingSpaces
                return name.isEmpty ? nil : String(name)
            }
        }
        return nil
    }

    /// The executable a process runs (`/proc/PID/exe`), nil when it cannot be read.
    public static func executablePath(pid: Int32, procRoot: String = "/proc") -> String? {
        FileSystem.linkTarget("\(procRoot)/\(pid)/exe", capacity: 4095)
    }

    /// A `/proc` file (or a Flatpak's info file) as text, through the core's one small-file
    /// reader: opened non-blocking (a FIFO planted as `.flatpak-info` cannot hang us), regular
    /// files only, at most `limit` bytes; nil otherwise.
    static func readSmallFile(_ path: String, limit: Int = 65536) -> String? {
        guard let bytes = try? FileSystem.readFile(path, limit: limit) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return s
    }
}
