import Glibc

/// The `x-scheme-handler/*` part of one `mimeapps.list` (or `<desktop>-mimeapps.list`) file
/// (MIME Apps spec 1.0.1).
///
/// Keys `x-scheme-handler/<scheme>` are kept by scheme (lower-cased); other keys that are content
/// types (`type/subtype`) by type (lower-cased), in tables of their own. Values are `;`-lists of desktop IDs; malformed IDs are dropped and repeats
/// removed (first kept). Keys that differ only in case are the same key (the later one wins).
public struct MimeAppsList: Sendable, Equatable {
    /// The file.
    public var path: String
    /// `[Default Applications]`: scheme → desktop IDs in preference order.
    public var defaults: [String: [String]]
    /// `[Added Associations]`: scheme → desktop IDs in preference order.
    public var added: [String: [String]]
    /// `[Removed Associations]`: scheme → desktop IDs.
    public var removed: [String: [String]]
    /// The same three groups for content types: type → desktop IDs.
    public var typeDefaults: [String: [String]] = [:]
    public var typeAdded: [String: [String]] = [:]
    public var typeRemoved: [String: [String]] = [:]

    static let defaultGroup = "Default Applications"
    static let addedGroup = "Added Associations"
    static let removedGroup = "Removed Associations"

    public init(path: String, defaults: [String: [String]] = [:], added: [String: [String]] = [:],
                removed: [String: [String]] = [:]) {
        self.path = path
        self.defaults = defaults
        self.added = added
        self.removed = removed
    }

    /// Reads the groups from a parsed file. When `allowsAssociations` is false (desktop-specific
    /// files), `[Added Associations]` and `[Removed Associations]` are ignored with a warning, as
    /// the spec only allows defaults there.
    public init(keyFile: KeyFile, allowsAssociations: Bool, warnings: inout [KeyFileError]) {
        self.path = keyFile.path
        (self.defaults, self.typeDefaults) = MimeAppsList.read(keyFile.group(MimeAppsList.defaultGroup))
        if allowsAssociations {
            (self.added, self.typeAdded) = MimeAppsList.read(keyFile.group(MimeAppsList.addedGroup))
            (self.removed, self.typeRemoved) = MimeAppsList.read(keyFile.group(MimeAppsList.removedGroup))
        } else {
            self.added = [:]
            self.removed = [:]
            for name in [MimeAppsList.addedGroup, MimeAppsList.removedGroup] {
                if let g = keyFile.group(name) {
                    warnings.append(KeyFileError(path: keyFile.path, line: g.line,
                                                 message: "[\(name)] is only allowed in files named mimeapps.list; ignored"))
                }
            }
        }
        warnings.append(contentsOf: keyFile.warnings)
    }

    /// A group's keys: schemes (of `x-scheme-handler/…`) and content types, each to its IDs.
    private static func read(_ group: KeyFile.Group?) -> (schemes: [String: [String]], types: [String: [String]]) {
        guard let group else { return ([:], [:]) }
        var schemes: [String: [String]] = [:]
        var types: [String: [String]] = [:]
        for entry in group.entries where entry.locale == nil {
            let scheme = Scheme.fromMimeType(entry.key)
            let type = scheme == nil ? (try? PasteboardType.validated(entry.key)).flatMap { $0.hasPrefix("x-scheme-handler/") ? nil : $0 } : nil
            guard scheme != nil || type != nil else { continue }
            var ids: [String] = []
            for id in KeyFileValue.splitList(entry.rawValue) {
                let trimmed = id.trimmingSpaces()
                if DesktopID.isValid(trimmed), !ids.contains(trimmed) { ids.append(trimmed) }
            }
            if let scheme { schemes[scheme] = ids } else if let type { types[type] = ids }
        }
        return (schemes, types)
    }

    /// Every scheme this file mentions in any group.
    public var mentionedSchemes: Set<String> {
        Set(defaults.keys).union(added.keys).union(removed.keys)
    }

    /// Every desktop ID this file mentions, with the schemes it is mentioned for.
    var mentionedIDs: [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for table in [defaults, added, removed] {
            for (scheme, ids) in table {
                for id in ids { result[id, default: []].insert(scheme) }
            }
        }
        return result
    }

    /// Reads `path`. Returns nil (no warning) when the file does not exist; an unreadable or
    /// malformed file is treated as empty, with a warning (GLib likewise ignores such a file).
    public static func load(path: String, allowsAssociations: Bool) -> (list: MimeAppsList?, warnings: [KeyFileError]) {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path)
        } catch {
            if error.code == ENOENT || error.code == ENOTDIR { return (nil, []) }
            return (MimeAppsList(path: path), [KeyFileError(path: path, line: 0, message: error.message + "; ignored")])
        }
        do {
            let keyFile = try KeyFile(bytes: bytes, path: path)
            var warnings: [KeyFileError] = []
            let list = MimeAppsList(keyFile: keyFile, allowsAssociations: allowsAssociations, warnings: &warnings)
            return (list, warnings)
        } catch {
            var e = error
            e.message += "; the whole file is ignored"
            return (MimeAppsList(path: path), [e])
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
