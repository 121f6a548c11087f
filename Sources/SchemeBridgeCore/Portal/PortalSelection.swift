import Glibc

/// How xdg-desktop-portal is told to take SchemeBridge's `AppChooser` (its shipped
/// `schemebridge.portal`, `UseIn=X-SchemeBridge`) and nothing else of it, for this user only;
/// the file changes `schemebridge integrate enable --portal` makes. Read in the portal's own code:
///
/// - **1.16 and older** (Debian 12) have no `portals.conf`: for each interface the frontend
///   takes the first `.portal` file whose `UseIn=` names a desktop of its `XDG_CURRENT_DESKTOP`,
///   desktop by desktop in order (`src/portal-impl.c`, `find_portal_implementation`). Started with
///   `X-SchemeBridge:<the desktops>`, it takes SchemeBridge's AppChooser and FileChooser (the
///   interfaces `schemebridge.portal` has) and every other interface from the desktop's own backends, as
///   before. The portal is started by the session bus (`org.freedesktop.portal.Desktop.service`,
///   whose `SystemdService=` hands it to systemd where the bus activates through systemd): so the
///   user's copy of that file (`$XDG_DATA_HOME/dbus-1/services`, found before the system's) runs
///   it through `env XDG_CURRENT_DESKTOP=…`, and a drop-in for its systemd user unit sets the
///   same variable there. Nothing else in the session sees the changed variable; the apps the
///   portal starts inherit it.
/// - **1.17 and newer** read `portals.conf` (`src/portal-impl.c` and `doc/portals.conf.rst`): the
///   first `DESKTOP-portals.conf` or `portals.conf` found (the user's `$XDG_CONFIG_HOME` first)
///   decides, whole. The user's file gets `org.freedesktop.impl.portal.AppChooser=schemebridge`
///   and `org.freedesktop.impl.portal.FileChooser=schemebridge` in `[preferred]`; when the user has none, the file the portal reads now is copied there
///   first, so `default=` and every other line stay as they were.
public enum PortalSelection {
    /// How the portal is told.
    public enum Way: String, Sendable {
        /// `XDG_CURRENT_DESKTOP=X-SchemeBridge:…` for the portal (1.16 and older).
        case environment
        /// `portals.conf` (1.17 and newer).
        case portalsConf = "portals.conf"
    }

    /// The desktop name in `schemebridge.portal`'s `UseIn=`.
    public static let desktop = "X-SchemeBridge"
    /// The backend's name for `portals.conf` (the `.portal` file's name).
    public static let backend = "schemebridge"
    /// The portal frontend's bus name (its D-Bus activation file is `NAME.service`).
    public static let frontendName = "org.freedesktop.portal.Desktop"
    /// The frontend's systemd user unit.
    public static let unit = "xdg-desktop-portal.service"
    static let appChooserKey = "org.freedesktop.impl.portal.AppChooser"
    /// The interfaces `schemebridge.portal` implements, each given to SchemeBridge in `portals.conf`.
    static let interfaceKeys = [appChooserKey, FileChooserDelegate.interface]

    /// The way for a portal of `version` (`xdg-desktop-portal --version`'s last word, e.g.
    /// `1.16.0`): `portals.conf` from 1.17; nil when it is not a version.
    public static func way(forVersion version: String) -> Way? {
        let parts = version.split(separator: ".").map { Int($0) }
        guard parts.count >= 2, let major = parts[0], let minor = parts[1] else { return nil }
        return (major, minor) >= (1, 17) ? .portalsConf : .environment
    }

    /// The version in `xdg-desktop-portal --version`'s output (`xdg-desktop-portal 1.16.0`).
    public static func version(fromOutput text: String) -> String? {
        guard text.hasPrefix("xdg-desktop-portal ") else { return nil }
        let word = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).last.map(String.init)
        return word.flatMap { way(forVersion: $0) != nil ? $0 : nil }
    }

    /// The desktops of `XDG_CURRENT_DESKTOP` (as written: apps the portal starts see them) without
    /// SchemeBridge's own (a value written before).
    public static func desktops(_ currentDesktop: String?) -> [String] {
        (currentDesktop ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty && !$0.caseInsensitiveEquals(desktop) }
    }

    /// Whether `name` can be written into an `Exec=` or `Environment=` line as it is.
    static func isPlainDesktopName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E
        }
    }

    /// Why `files(way:directories:portalsDirectory:)` cannot be done.
    public struct Refusal: Error, Sendable, Equatable {
        public let message: String
        public init(_ message: String) { self.message = message }
    }

    /// The file changes for `way` (before: each file as it is now), directories created first;
    /// changes that would change nothing are left out.
    /// `unitDirectories`: where a package installs the portal's systemd user unit (a drop-in is
    /// written only when it is there); `sysconfDirectory`, `dataDirectory`: the portal's own
    /// configuration directories, searched for `portals.conf` after the XDG ones.
    public static func files(way: Way, directories: XDGDirectories, currentDesktop: String?, portalsDirectory: String,
                             unitDirectories: [String] = defaultUnitDirectories,
                             sysconfDirectory: String = "/etc/xdg-desktop-portal",
                             dataDirectory: String = "/usr/share/xdg-desktop-portal") throws(Refusal) -> [PortalChange] {
        let desktops = desktops(currentDesktop)
        var edits: [(path: String, before: [UInt8]?, after: [UInt8])] = []
        switch way {
        case .environment:
            guard !desktops.isEmpty else {
                throw Refusal("XDG_CURRENT_DESKTOP is not set: run this in your desktop session (the portal 1.16 needs the desktop's name to keep its other backends)")
            }
            if let odd = desktops.first(where: { !isPlainDesktopName($0) }) {
                throw Refusal("the desktop name '\(odd.prefix(64))' in XDG_CURRENT_DESKTOP has characters SchemeBridge does not write into the portal's files")
            }
            let value = ([desktop] + desktops).joined(separator: ":")
            edits.append(try serviceFileEdit(value: value, directories: directories))
            if unitDirectories.contains(where: { FileSystem.info(XDGDirectories.join($0, unit)).kind == .file }) {
                let path = XDGDirectories.join(XDGDirectories.join(directories.configHome, "systemd/user/\(unit).d"), "schemebridge.conf")
                let text = "# Written by `schemebridge integrate enable --portal`; `schemebridge integrate disable --portal` removes it.\n"
                    + "# The portal takes SchemeBridge's AppChooser (schemebridge.portal, UseIn=\(desktop)) and its other backends as before.\n"
                    + "[Service]\nEnvironment=XDG_CURRENT_DESKTOP=\(value)\n"
                edits.append((path, readIfThere(path), Array(text.utf8)))
            }
        case .portalsConf:
            edits.append(portalsConfEdit(desktops: desktops, directories: directories, portalsDirectory: portalsDirectory,
                                         sysconfDirectory: sysconfDirectory, dataDirectory: dataDirectory))
        }
        var changes: [PortalChange] = []
        for edit in edits where edit.before != edit.after {
            for dir in missingDirectories(FileSystem.dirname(edit.path)) where !changes.contains(.directory(path: dir)) {
                changes.append(.directory(path: dir))
            }
            changes.append(.file(path: edit.path, before: edit.before, after: edit.after))
        }
        return changes
    }

    /// Where systemd looks for user units installed by packages (`systemd.unit(5)`).
    public static let defaultUnitDirectories = ["/etc/systemd/user", "/usr/local/lib/systemd/user", "/usr/lib/systemd/user", "/lib/systemd/user"]

    /// The user's `org.freedesktop.portal.Desktop.service` with its `Exec=` run through
    /// `env XDG_CURRENT_DESKTOP=value`: the user's own file edited, else the system's copied.
    static func serviceFileEdit(value: String, directories: XDGDirectories) throws(Refusal) -> (path: String, before: [UInt8]?, after: [UInt8]) {
        let name = "dbus-1/services/\(frontendName).service"
        let path = XDGDirectories.join(directories.dataHome, name)
        let before = readIfThere(path)
        var base = before
        var copied = false
        if base == nil {
            for dir in directories.dataDirs where dir != directories.dataHome {
                if let bytes = readIfThere(XDGDirectories.join(dir, name)) {
                    base = bytes
                    copied = true
                    break
                }
            }
        }
        guard let base else {
            throw Refusal("xdg-desktop-portal is not installed (no \(frontendName).service in the data directories' dbus-1/services)")
        }
        var document = KeyFileDocument(bytes: base)
        let group = "D-BUS Service"
        guard var exec = document.rawValue(inGroup: group, where: { $0 == "Exec" }), !exec.isEmpty else {
            throw Refusal("\(path): the portal's D-Bus activation file has no Exec= line")
        }
        let prefix = "/usr/bin/env XDG_CURRENT_DESKTOP="
        if exec.hasPrefix(prefix), let space = exec.dropFirst(prefix.count).firstIndex(of: " ") {
            exec = String(exec[exec.index(after: space)...])
        }
        document.setValue(prefix + value + " " + exec, forKey: "Exec", inGroup: group)
        var after = document.bytes
        if copied {
            after = Array(("# A copy of the portal's D-Bus activation file by `schemebridge integrate enable --portal` (it starts the portal with\n"
                + "# SchemeBridge's AppChooser first); `schemebridge integrate disable --portal` removes it.\n").utf8) + after
        }
        return (path, before, after)
    }

    /// The `portals.conf` edit: the user's file the portal reads (desktop-specific first), else a
    /// copy there of the one it reads now, else a new `portals.conf` whose `default=` names the
    /// backends the portal would take by `UseIn=`.
    static func portalsConfEdit(desktops: [String], directories: XDGDirectories, portalsDirectory: String,
                                sysconfDirectory: String, dataDirectory: String) -> (path: String, before: [UInt8]?, after: [UInt8]) {
        let names = desktops.map { Registry.lowercasedASCII($0) + "-portals.conf" } + ["portals.conf"]
        let user = XDGDirectories.join(directories.configHome, "xdg-desktop-portal")
        let xdp = { (dir: String) in XDGDirectories.join(dir, "xdg-desktop-portal") }
        let searched = directories.configDirs.map(xdp) + [sysconfDirectory, xdp(directories.dataHome)] + directories.dataDirs.map(xdp) + [dataDirectory]
        var found: (path: String, bytes: [UInt8])?
        for dir in [user] + searched where found == nil {
            for name in names {
                let path = XDGDirectories.join(dir, name)
                if let bytes = readIfThere(path) {
                    found = (path, bytes)
                    break
                }
            }
        }
        var document: KeyFileDocument
        let path: String
        if let found, found.path.hasPrefix(user + "/") {
            path = found.path
            document = KeyFileDocument(bytes: found.bytes)
        } else if let found {
            path = XDGDirectories.join(user, FileSystem.basename(found.path))
            document = KeyFileDocument(bytes: Array("# A copy of \(found.path) by `schemebridge integrate enable --portal`; `schemebridge integrate disable --portal` removes it.\n".utf8) + found.bytes)
        } else {
            path = XDGDirectories.join(user, "portals.conf")
            let chosen = backends(useIn: desktops, portalsDirectory: portalsDirectory)
            document = KeyFileDocument(bytes: Array(("# Written by `schemebridge integrate enable --portal` (the portal read no portals.conf);\n"
                + "# `schemebridge integrate disable --portal` removes it.\n[preferred]\ndefault=\((chosen + ["*"]).joined(separator: ";"))\n").utf8))
        }
        for key in interfaceKeys { document.setValue(backend, forKey: key, inGroup: "preferred") }
        return (path, readIfThere(path), document.bytes)
    }

    /// The names of the `.portal` files in `portalsDirectory` whose `UseIn=` names one of
    /// `desktops`, desktop by desktop, then by name (SchemeBridge's own left out).
    static func backends(useIn desktops: [String], portalsDirectory: String) -> [String] {
        var files: [(name: String, useIn: [String])] = []
        for entry in ((try? FileSystem.list(portalsDirectory))?.entries ?? []).map(\.name) where entry.hasSuffix(".portal") {
            let name = String(entry.dropLast(7))
            guard name != backend, let bytes = readIfThere(XDGDirectories.join(portalsDirectory, entry)),
                  let file = try? KeyFile(bytes: bytes, path: entry), let useIn = file.group("portal")?.stringList("UseIn") else { continue }
            files.append((name, useIn))
        }
        files.sort { $0.name < $1.name }
        var out: [String] = []
        for d in desktops {
            for f in files where !out.contains(f.name) && f.useIn.contains(where: { $0.caseInsensitiveEquals(d) }) { out.append(f.name) }
        }
        return out
    }

    /// Whether `schemebridge.portal` is in `portalsDirectory` (the portal reads backends only
    /// from its own data directory, or `XDG_DESKTOP_PORTAL_DIR`).
    public static func isBackendInstalled(portalsDirectory: String) -> Bool {
        FileSystem.info(XDGDirectories.join(portalsDirectory, backend + ".portal")).kind == .file
    }

    /// The program the session bus starts as the portal (the first word of `Exec=` in the
    /// system's `org.freedesktop.portal.Desktop.service`); nil when none is found.
    public static func frontendProgram(directories: XDGDirectories) -> String? {
        for dir in directories.dataDirs where dir != directories.dataHome {
            guard let bytes = readIfThere(XDGDirectories.join(dir, "dbus-1/services/\(frontendName).service")),
                  let file = try? KeyFile(bytes: bytes, path: dir),
                  let words = file.group("D-BUS Service")?.string("Exec")?.split(separator: " ").map(String.init) else { continue }
            // `env VAR=value … PROGRAM`: the program after the assignments.
            let program = words.first { $0.hasPrefix("/") && !$0.hasSuffix("/env") && !$0.contains("=") }
            if let program { return program }
        }
        return nil
    }

    /// The ancestors of `dir` (itself included) that do not exist, outermost first.
    static func missingDirectories(_ dir: String) -> [String] {
        var missing: [String] = []
        var current = dir
        while current != "/" && current != "." && FileSystem.info(current).kind == .missing {
            missing.insert(current, at: 0)
            current = FileSystem.dirname(current)
        }
        return missing
    }

    /// A file's bytes; nil when there is none (or it cannot be read).
    static func readIfThere(_ path: String) -> [UInt8]? {
        guard FileSystem.info(path).kind == .file else { return nil }
        return try? FileSystem.readFile(path)
    }
}

extension String {
    /// ASCII case-insensitive equality (desktop names: GLib's `g_ascii_strcasecmp`).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        Registry.lowercasedASCII(self) == Registry.lowercasedASCII(other)
    }
}
