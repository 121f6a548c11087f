import Glibc

/// The XDG Base Directory locations that matter to SchemeBridge, computed from an explicit
/// environment dictionary (never from the process environment), per the XDG Base Directory
/// specification 0.8:
///
/// - unset or empty variables take the spec's defaults (`$HOME/.local/share`, `$HOME/.config`,
///   `/usr/local/share/:/usr/share/`, `/etc/xdg`);
/// - relative paths are ignored (a relative `XDG_DATA_HOME` falls back to the default; relative
///   entries are dropped from `XDG_DATA_DIRS` / `XDG_CONFIG_DIRS`); a list that is left empty
///   falls back to its default too;
/// - trailing slashes are removed and repeated directories are kept only at their first,
///   highest-precedence position;
/// - `XDG_CURRENT_DESKTOP` is split on `:`, ASCII-lower-cased, and components that are not
///   `[A-Za-z0-9_-]+` are dropped (as GLib does; they become file names).
///
/// If `HOME` is unset the password database entry of the current user is used, then `/`.
public struct XDGDirectories: Sendable, Equatable {
    /// The user's home directory.
    public var home: String
    /// `$XDG_DATA_HOME`.
    public var dataHome: String
    /// `$XDG_DATA_DIRS`, in precedence order.
    public var dataDirs: [String]
    /// `$XDG_CONFIG_HOME`.
    public var configHome: String
    /// `$XDG_CONFIG_DIRS`, in precedence order.
    public var configDirs: [String]
    /// `$XDG_CURRENT_DESKTOP` components, lower-cased, in order.
    public var currentDesktops: [String]
    /// `$PATH` entries (absolute ones), used to find `TryExec` programs.
    public var executableSearchPath: [String]

    /// Reads the locations from `environment`.
    public init(environment: [String: String]) {
        let home = XDGDirectories.absolute(environment["HOME"]) ?? XDGDirectories.passwordHome() ?? "/"
        self.home = home
        self.dataHome = XDGDirectories.absolute(environment["XDG_DATA_HOME"])
            ?? XDGDirectories.join(home, ".local/share")
        self.configHome = XDGDirectories.absolute(environment["XDG_CONFIG_HOME"])
            ?? XDGDirectories.join(home, ".config")
        let dataDirs = XDGDirectories.pathList(environment["XDG_DATA_DIRS"])
        self.dataDirs = dataDirs.isEmpty ? ["/usr/local/share", "/usr/share"] : dataDirs
        let configDirs = XDGDirectories.pathList(environment["XDG_CONFIG_DIRS"])
        self.configDirs = configDirs.isEmpty ? ["/etc/xdg"] : configDirs
        self.currentDesktops = XDGDirectories.desktops(environment["XDG_CURRENT_DESKTOP"])
        self.executableSearchPath = ProgramLookup.searchPath(environment: environment)
    }

    /// The `applications` directories in precedence order: `$XDG_DATA_HOME/applications`, then
    /// each `$XDG_DATA_DIRS/applications`. Duplicates are removed (first one kept); at most the
    /// first 64 are used.
    public var applicationsDirectories: [ApplicationsDirectory] {
        dataSubdirectories("applications").map { ApplicationsDirectory(path: $0.path, dataDirectory: $0.dataDirectory) }
    }

    /// The shared-mime-info database directories in precedence order: `$XDG_DATA_HOME/mime`,
    /// then each `$XDG_DATA_DIRS/mime` (duplicates removed, at most 64).
    public var mimeDirectories: [String] { dataSubdirectories("mime").map(\.path) }

    /// `name` in `$XDG_DATA_HOME`, then in each `$XDG_DATA_DIRS`: duplicates removed (first one
    /// kept), at most the first 64.
    private func dataSubdirectories(_ name: String) -> [(path: String, dataDirectory: String)] {
        var seen = Set<String>()
        var result: [(path: String, dataDirectory: String)] = []
        for dataDir in [dataHome] + dataDirs {
            let path = XDGDirectories.join(dataDir, name)
            if seen.insert(path).inserted && result.count < 64 { result.append((path, dataDir)) }
        }
        return result
    }

    /// Every directory that may hold `mimeapps.list` files, in the MIME Apps spec's precedence
    /// order: `$XDG_CONFIG_HOME`, each `$XDG_CONFIG_DIRS`, then the applications directories.
    public var mimeappsDirectories: [MimeAppsDirectory] {
        var seen = Set<String>()
        var result: [MimeAppsDirectory] = []
        for dir in [configHome] + configDirs where seen.insert(dir).inserted {
            result.append(MimeAppsDirectory(path: dir, applications: nil))
        }
        for (index, apps) in applicationsDirectories.enumerated() where seen.insert(apps.path).inserted {
            result.append(MimeAppsDirectory(path: apps.path, applications: index))
        }
        return result
    }

    /// The file names of the lists read in each mimeapps directory, in precedence order:
    /// `<desktop>-mimeapps.list` for each current desktop, then `mimeapps.list`.
    public var mimeappsFileNames: [String] {
        currentDesktops.map { "\($0)-mimeapps.list" } + ["mimeapps.list"]
    }

    /// `$XDG_CONFIG_HOME/mimeapps.list`, the file that ``Registry/setDefault(scheme:desktopID:)`` writes.
    public var userMimeappsList: String { XDGDirectories.join(configHome, "mimeapps.list") }

    // MARK: helpers

    static func absolute(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        return normalize(value)
    }

    static func normalize(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    static func pathList(_ value: String?) -> [String] {
        guard let value else { return [] }
        var seen = Set<String>()
        var result: [String] = []
        for part in value.split(separator: ":", omittingEmptySubsequences: true) {
            guard part.hasPrefix("/") else { continue }
            let p = normalize(String(part))
            if seen.insert(p).inserted { result.append(p) }
        }
        return result
    }

    static func desktops(_ value: String?) -> [String] {
        guard let value else { return [] }
        var result: [String] = []
        for part in value.split(separator: ":", omittingEmptySubsequences: true) {
            let ok = part.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                    || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
            }
            guard ok else { continue }
            let lower = String(decoding: part.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }, as: UTF8.self)
            if !result.contains(lower) { result.append(lower) }
        }
        return result
    }

    static func join(_ dir: String, _ name: String) -> String {
        if dir.hasSuffix("/") { return dir + name }
        return dir + "/" + name
    }

    static func passwordHome() -> String? {
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return nil }
        return absolute(String(cString: dir))
    }
}

/// One `applications` directory of an XDG data directory.
public struct ApplicationsDirectory: Sendable, Equatable, Hashable {
    /// The directory, e.g. `/usr/share/applications`.
    public var path: String
    /// The XDG data directory it belongs to, e.g. `/usr/share`.
    public var dataDirectory: String
}

/// One directory that may contain `mimeapps.list` files.
public struct MimeAppsDirectory: Sendable, Equatable, Hashable {
    /// The directory.
    public var path: String
    /// When this is an applications directory, its index in
    /// ``XDGDirectories/applicationsDirectories``; nil for config directories.
    public var applications: Int?
}
