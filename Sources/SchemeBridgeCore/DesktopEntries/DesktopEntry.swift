/// Why a desktop file could not be used.
public struct DesktopEntryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The desktop file.
    public var path: String
    /// The line concerned, 0 for the whole file.
    public var line: Int
    /// What is wrong.
    public var message: String

    public var description: String {
        line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}

/// One application desktop entry (Desktop Entry spec 1.5), with the keys SchemeBridge uses.
///
/// Values are unescaped; localized keys (`Name`) are resolved for the locale given when the entry
/// was parsed. Keys not listed here are dropped, except `X-…` keys of the `[Desktop Entry]` group,
/// kept (unlocalized, unescaped) in ``extensionKeys`` for later policy (e.g.
/// `X-SchemeBridge-AllowedCallers`).
///
/// An entry is a small value (one reference to immutable storage), cheap to copy and store.
public struct DesktopEntry: Sendable, Equatable {
    private final class Storage: Sendable {
        let fields: DesktopEntryFields
        init(_ fields: DesktopEntryFields) { self.fields = fields }
    }

    private let storage: Storage

    /// The desktop file ID, e.g. `vendor-app.desktop`.
    public var id: DesktopID { DesktopID(fileName: storage.fields.id) }
    /// ``id``'s file name (what the registry's tables are keyed by).
    var idText: String { storage.fields.id }
    /// The file it was read from.
    public var path: String { storage.fields.path }
    /// The applications directory holding it (its ID is relative to this).
    public var applicationsDirectory: String { storage.fields.applicationsDirectory }
    /// The XDG data directory whose `applications` folder holds it (launch images default to
    /// `<dataDirectory>/launch-images/<id without .desktop>/`).
    public var dataDirectory: String { storage.fields.dataDirectory }
    /// `Hidden=true`: the entry is deleted; it masks entries of the same ID below it.
    public var hidden: Bool { storage.fields.hidden }
    /// Localized `Name`.
    public var name: String? { storage.fields.name }
    /// Localized `Icon`.
    public var icon: String? { storage.fields.icon }
    /// `Exec`, unescaped; nil when absent.
    public var exec: String? { storage.fields.exec }
    /// Why `Exec` is invalid, when it is.
    public var execError: ExecError? { storage.fields.execError }
    /// `TryExec`.
    public var tryExec: String? { storage.fields.tryExec }
    /// `Path`: the working directory (empty values become nil).
    public var workingDirectory: String? { storage.fields.workingDirectory }
    /// `Terminal`.
    public var terminal: Bool { storage.fields.terminal }
    /// `NoDisplay`.
    public var noDisplay: Bool { storage.fields.noDisplay }
    /// `StartupNotify`; nil when absent (the spec leaves that case to the launcher).
    public var startupNotify: Bool? { storage.fields.startupNotify }
    /// `StartupWMClass`.
    public var startupWMClass: String? { storage.fields.startupWMClass }
    /// `DBusActivatable`.
    public var dbusActivatable: Bool { storage.fields.dbusActivatable }
    /// The lower-cased schemes of `MimeType=x-scheme-handler/…` values, in file order, without
    /// duplicates. Other MIME types are not kept.
    public var schemes: [String] { storage.fields.schemes }
    /// The content types of `MimeType` (every value but `x-scheme-handler/…`), lower-cased, in
    /// file order, without duplicates: the documents the app opens.
    public var mimeTypes: [String] { storage.fields.mimeTypes }
    /// The most content types kept of one entry (the rest are ignored).
    public static let maximumContentTypes = 1024

    /// The content types among the `MimeType` values: `type/subtype` of MIME token characters,
    /// lower-cased, deduplicated, at most ``maximumContentTypes``. Only the first
    /// ``maximumSchemes`` + ``maximumContentTypes`` values are looked at: a huge line is never
    /// split whole.
    static func contentTypes(_ mimeType: KeyFile.Entry?) -> [String] {
        guard let mimeType else { return [] }
        var types: [String] = []
        var seen = Set<String>()
        var looked = 0
        KeyFileValue.forEachListElement(mimeType.rawValue) { v in
            looked += 1
            guard looked <= maximumSchemes + maximumContentTypes, types.count < maximumContentTypes else { return false }
            if let t = try? PasteboardType.validated(String(v)), !t.hasPrefix("x-scheme-handler/"), seen.insert(t).inserted { types.append(t) }
            return true
        }
        return types
    }
    /// `X-LaunchImage` (the launch image base name; nil means the default `Default`).
    public var launchImage: String? { storage.fields.launchImage }
    /// `X-LaunchImageDir`, as written (absolute, or relative to the entry's file).
    public var launchImageDirectory: String? { storage.fields.launchImageDirectory }
    /// Every other `X-…` key of `[Desktop Entry]` (unlocalized values, unescaped).
    public var extensionKeys: [String: String] { storage.fields.extensionKeys }
    /// The share targets the entry declares (desktop actions with `X-SchemeBridge-Share-Types=`).
    public var shareActions: [ShareAction] { storage.fields.shareActions }

    /// The program of a valid `Exec` (a path or a name to look up in `PATH`), nil when `Exec` is
    /// absent or invalid. Kept from parsing, so lookups never re-parse `Exec`.
    public var execProgram: String? { storage.fields.execProgram }
    /// Whether a valid `Exec` hands URLs back to SchemeBridge or to the desktop's default opener
    /// (see ``LoopSafety/handsURLsBack(_:)``: `schemebridge open`, also behind `env`, `nice`,
    /// `setsid`… or inside `sh -c`; `xdg-open`, `gio open`, `kde-open`…). Such an entry is never
    /// a handler. Decided once, when the entry is parsed.
    public var runsSchemeBridgeOpen: Bool { storage.fields.runsSchemeBridgeOpen }

    /// The parsed `Exec` (parsed once per text, ``ParsedExecCommands``: it is only needed at
    /// launch); nil when absent or invalid (then the entry is only usable when ``dbusActivatable``).
    public var execCommand: ExecCommand? {
        guard execError == nil, let exec else { return nil }
        return ParsedExecCommands.command(exec)
    }

    /// Parses an entry from its key file (`path`: the file's absolute path). Returns nil when the
    /// file is a valid desktop entry but not an application (`Type=Link`, `Type=Directory`, …).
    /// - Throws: ``DesktopEntryError`` when there is no `[Desktop Entry]` first group or no `Type`.
    public init?(keyFile: KeyFile, id: DesktopID, path: String, directory: ApplicationsDirectory,
                 locale: LocaleMatcher) throws(DesktopEntryError) {
        var ignored: [KeyFileError] = []
        try self.init(keyFile: keyFile, id: id.fileName, path: path, directory: directory, locale: locale, warnings: &ignored)
    }

    /// ``init(keyFile:id:path:directory:locale:)``, adding the problems that leave the entry
    /// usable (more schemes than ``maximumSchemes``) to `warnings`.
    init?(keyFile: KeyFile, id: String, path: String, directory: ApplicationsDirectory,
          locale: LocaleMatcher, warnings: inout [KeyFileError]) throws(DesktopEntryError) {
        guard let fields = try DesktopEntryFields(keyFile: keyFile, id: id, path: path, directory: directory, locale: locale,
                                                  warnings: &warnings) else {
            return nil
        }
        storage = Storage(fields)
    }

    /// An entry from stored fields (the registry index), without parsing.
    init(fields: DesktopEntryFields) {
        storage = Storage(fields)
    }

    /// The stored fields (for the registry index).
    var fields: DesktopEntryFields { storage.fields }

    public static func == (lhs: DesktopEntry, rhs: DesktopEntry) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Why this entry cannot handle URLs, or nil when it is eligible: not `Hidden`, `TryExec`
    /// (if any) found, and a valid `Exec` or `DBusActivatable=true`.
    /// `searchPath` is the `PATH` used to find a bare `TryExec` name.
    public func ineligibility(searchPath: [String]) -> String? {
        if hidden { return "Hidden=true" }
        if let tryExec, ProgramLookup.find(tryExec, searchPath: searchPath) == nil {
            return "TryExec program '\(tryExec)' is not installed"
        }
        if execError != nil && !dbusActivatable {
            return (execError ?? .empty).description
        }
        return nil
    }

    /// The processes to spawn to open `urls` with this entry (see ``ExecCommand``); empty when
    /// the entry has no valid `Exec` (a `DBusActivatable` entry is then opened over D-Bus).
    public func launchCommands(for urls: [SchemeURL]) -> [LaunchCommand] {
        guard let execCommand else { return [] }
        let context = ExecContext(icon: icon, name: name, desktopFilePath: execCommand.namesDesktopFile ? path : nil)
        return execCommand.argumentByteVectors(for: urls, context: context).map {
            LaunchCommand(arguments: $0, workingDirectory: workingDirectory)
        }
    }

    /// The entry's ID (``id``; app id, bus name, object path).
    public var desktopID: DesktopID { id }
    /// The D-Bus name to activate for a `DBusActivatable` entry (the ID without `.desktop`).
    public var busName: String { desktopID.busName }
    /// The D-Bus object path for a `DBusActivatable` entry.
    public var objectPath: String { desktopID.objectPath }

    /// Reads and parses the desktop file at `path`.
    /// - Returns: the entry, nil for a non-application entry, plus the parser's warnings.
    /// - Throws: ``DesktopEntryError`` for unreadable, oversized, non-UTF-8 or malformed files.
    public static func load(path: String, id: DesktopID, directory: ApplicationsDirectory,
                            locale: LocaleMatcher) throws(DesktopEntryError) -> (entry: DesktopEntry?, warnings: [KeyFileError]) {
        let loaded = try loadWithSignature(path: path, id: id.fileName, directory: directory, locale: locale)
        return (loaded.entry, loaded.warnings)
    }

    static func loadWithSignature(path: String, id: String, directory: ApplicationsDirectory, locale: LocaleMatcher)
        throws(DesktopEntryError) -> (entry: DesktopEntry?, warnings: [KeyFileError], signature: FileSignature) {
        let read: (bytes: [UInt8], signature: FileSignature)
        do {
            read = try FileSystem.readFileWithSignature(path)
        } catch {
            throw DesktopEntryError(path: path, line: 0, message: error.message)
        }
        let keyFile: KeyFile
        do {
            keyFile = try KeyFile(bytes: read.bytes, path: path, keepingLocales: locale)
        } catch {
            throw DesktopEntryError(path: error.path, line: error.line, message: error.message)
        }
        var warnings = keyFile.warnings
        let entry = try DesktopEntry(keyFile: keyFile, id: id, path: path, directory: directory, locale: locale, warnings: &warnings)
        return (entry, warnings, read.signature)
    }
}

/// The stored values of a ``DesktopEntry``.
struct DesktopEntryFields: Sendable, Equatable {
    /// A URL standing for any URL when deciding ``runsSchemeBridgeOpen``.
    static let probeURL = try! SchemeURL("x-schemebridge-probe:")

    /// The desktop file ID, e.g. `vendor-app.desktop`.
    let id: String
    /// The file it was read from, relative to ``applicationsDirectory`` when it lies below it
    /// (then often short enough to be stored inline: ~1 MB less for 10,000 entries), else the
    /// absolute path (which alone starts with `/`).
    let pathTail: String
    /// The file it was read from.
    var path: String { pathTail.hasPrefix("/") ? pathTail : XDGDirectories.join(applicationsDirectory, pathTail) }
    /// The applications directory holding it (its ID is relative to this).
    let applicationsDirectory: String
    /// The XDG data directory whose `applications` folder holds it (launch images default to
    /// `<dataDirectory>/launch-images/<id without .desktop>/`).
    let dataDirectory: String
    /// `Hidden=true`: the entry is deleted; it masks entries of the same ID below it.
    let hidden: Bool
    /// Localized `Name`.
    let name: String?
    /// Localized `Icon`.
    let icon: String?
    /// `Exec`, unescaped; nil when absent.
    let exec: String?
    /// Why `Exec` is invalid, when it is.
    let execError: ExecError?
    /// The program of a valid `Exec`.
    let execProgram: String?
    /// Whether a valid `Exec` runs `schemebridge open …`.
    let runsSchemeBridgeOpen: Bool
    /// `TryExec`.
    let tryExec: String?
    /// `Path`: the working directory (empty values become nil).
    let workingDirectory: String?
    /// `Terminal`.
    let terminal: Bool
    /// `NoDisplay`.
    let noDisplay: Bool
    /// `StartupNotify`; nil when absent (the spec leaves that case to the launcher).
    let startupNotify: Bool?
    /// `StartupWMClass`.
    let startupWMClass: String?
    /// `DBusActivatable`.
    let dbusActivatable: Bool
    /// The lower-cased schemes of `MimeType=x-scheme-handler/…` values, in file order, without
    /// duplicates. Other MIME types are not kept.
    let schemes: [String]
    /// The other `MimeType` values (content types), lower-cased, in file order, without
    /// duplicates; at most ``DesktopEntry/maximumContentTypes``.
    let mimeTypes: [String]
    /// `X-LaunchImage` (the launch image base name; nil means the default `Default`).
    let launchImage: String?
    /// `X-LaunchImageDir`, as written (absolute, or relative to the entry's file).
    let launchImageDirectory: String?
    /// Every other `X-…` key of `[Desktop Entry]` (unlocalized values, unescaped).
    let extensionKeys: [String: String]
    /// The share targets declared in its desktop actions.
    let shareActions: [ShareAction]

    /// Parses an entry from its key file. Returns nil when the file is a valid desktop entry but
    /// not an application (`Type=Link`, `Type=Directory`, …).
    /// Problems that leave the entry usable (more schemes than ``DesktopEntry/maximumSchemes``)
    /// are added to `warnings`.
    /// - Throws: ``DesktopEntryError`` when there is no `[Desktop Entry]` first group or no `Type`.
    init?(keyFile: KeyFile, id: String, path: String, directory: ApplicationsDirectory,
          locale: LocaleMatcher, warnings: inout [KeyFileError]) throws(DesktopEntryError) {
        guard let first = keyFile.groups.first else {
            throw DesktopEntryError(path: path, line: 0, message: "has no [Desktop Entry] group")
        }
        guard first.name == "Desktop Entry" else {
            if let g = keyFile.group("Desktop Entry") {
                throw DesktopEntryError(path: path, line: g.line,
                                        message: "[Desktop Entry] must be the first group (found [\(first.name)] first)")
            }
            throw DesktopEntryError(path: path, line: 0, message: "has no [Desktop Entry] group")
        }
        let g = first
        self.id = id
        let dir = directory.path
        let prefixLength = dir.hasSuffix("/") ? dir.utf8.count : dir.utf8.count + 1
        if !dir.isEmpty, path.utf8.count > prefixLength, path.hasPrefix(dir),
           case let tail = String(decoding: path.utf8.dropFirst(prefixLength), as: UTF8.self),
           !tail.hasPrefix("/"), XDGDirectories.join(dir, tail) == path {
            pathTail = tail
        } else {
            pathTail = path
        }
        self.applicationsDirectory = directory.path
        self.dataDirectory = directory.dataDirectory
        let hidden = g.boolean("Hidden") ?? false
        self.hidden = hidden
        if !hidden {
            guard let type = g.string("Type") else {
                throw DesktopEntryError(path: path, line: 0, message: "has no Type key")
            }
            guard type == "Application" else { return nil }
        }
        name = g.localizedString("Name", matcher: locale)
        icon = g.localizedString("Icon", matcher: locale).flatMap { $0.isEmpty ? nil : $0 }
        let exec = hidden ? nil : g.string("Exec")
        self.exec = exec
        var execError: ExecError? = nil
        var execProgram: String? = nil
        var runsSchemeBridgeOpen = false
        if let exec {
            do throws(ExecError) {
                let command = try ExecCommand(exec)
                execProgram = command.program
                // argv[0] is always the program; only then expand the argv a URL would get (the
                // probe stands for any URL) to see whether the first argument is `open`.
                if let argv = command.argumentVectors(for: [DesktopEntryFields.probeURL]).first {
                    runsSchemeBridgeOpen = LoopSafety.handsURLsBack(argv)
                }
            } catch {
                execError = error
            }
        } else if !hidden {
            execError = .empty
        }
        self.execError = execError
        self.execProgram = execProgram
        self.runsSchemeBridgeOpen = runsSchemeBridgeOpen
        tryExec = g.string("TryExec").flatMap { $0.isEmpty ? nil : $0 }
        workingDirectory = g.string("Path").flatMap { $0.isEmpty ? nil : $0 }
        terminal = g.boolean("Terminal") ?? false
        noDisplay = g.boolean("NoDisplay") ?? false
        startupNotify = g.boolean("StartupNotify")
        startupWMClass = g.string("StartupWMClass").flatMap { $0.isEmpty ? nil : $0 }
        // Checked once, here: an activatable app is called at its id as a bus name (and the object
        // path made from it); an id that is no bus name is launched by its Exec like any other
        // (without a usable Exec it is skipped, with the one warning that says so).
        var dbusActivatable = g.boolean("DBusActivatable") ?? false
        if dbusActivatable && !DesktopID(id).makesBusName {
            if execError == nil {
                warnings.append(KeyFileError(path: path, line: 0, message: "DBusActivatable=true, but its id \(id) does not make a D-Bus name: it is started by its Exec"))
            }
            dbusActivatable = false
        }
        self.dbusActivatable = dbusActivatable
        self.schemes = hidden ? [] : DesktopEntryFields.schemes(g.entry("MimeType"), path: path, warnings: &warnings)
        self.mimeTypes = hidden ? [] : DesktopEntry.contentTypes(g.entry("MimeType"))
        var launchImage: String? = nil
        var launchImageDirectory: String? = nil
        var ext: [String: String] = [:]
        for e in g.entries where e.locale == nil && e.key.hasPrefix("X-") {
            let v = KeyFileValue.unescape(e.rawValue)
            switch e.key {
            case "X-LaunchImage": launchImage = v.isEmpty ? nil : v
            case "X-LaunchImageDir": launchImageDirectory = v.isEmpty ? nil : v
            default: ext[e.key] = v
            }
        }
        self.launchImage = launchImage
        self.launchImageDirectory = launchImageDirectory
        self.extensionKeys = ext
        self.shareActions = hidden ? [] : ShareAction.parse(keyFile, entryGroup: g, id: id, path: path, locale: locale,
                                                            dbusActivatable: dbusActivatable, warnings: &warnings)
    }
}
