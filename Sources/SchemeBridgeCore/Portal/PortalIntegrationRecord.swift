/// A content type's `always-ask` in the permission store's `desktop-used-apps` table, as the
/// portal frontend reads it (xdg-desktop-portal `src/open-uri.c`, `get_latest_choice_info`: the
/// entry's data is a dictionary and its `always-ask` a boolean). The entry's app permissions (the
/// frontend's own counts of choices) are never part of it: they are left as they are.
public enum PortalAskState: Sendable, Equatable {
    /// No entry for the type.
    case noEntry
    /// An entry with no data (the store's `byte 0`: what an entry made by `SetPermission` has).
    case noData
    /// An entry whose data is a dictionary without `always-ask`.
    case unset
    /// An entry whose data is a dictionary with `always-ask` of this value.
    case set(Bool)
    /// An entry whose data is something else: never touched.
    case unsupported

    /// The state `integrate enable --portal` writes.
    public static let asked = PortalAskState.set(true)

    /// The record's word for it.
    var word: String {
        switch self {
        case .noEntry: "no-entry"
        case .noData: "no-data"
        case .unset: "unset"
        case .set(let b): b ? "true" : "false"
        case .unsupported: "unsupported"
        }
    }

    init?(word: String) {
        switch word {
        case "no-entry": self = .noEntry
        case "no-data": self = .noData
        case "unset": self = .unset
        case "true": self = .set(true)
        case "false": self = .set(false)
        case "unsupported": self = .unsupported
        default: return nil
        }
    }
}

/// One change `schemebridge integrate enable --portal` made, with what it replaced: enough to
/// tell whether it is still as written and to undo exactly it.
public enum PortalChange: Sendable, Equatable {
    /// A directory it created (removed again by `disable` when it is empty).
    case directory(path: String)
    /// A file's bytes before and after (nil: no file).
    case file(path: String, before: [UInt8]?, after: [UInt8]?)
    /// A content type marked always-ask (after: ``PortalAskState/asked``), and how it was before.
    case alwaysAsk(type: String, before: PortalAskState)
    /// A route written as the caller's permission in the type's entry (after:
    /// ``PortalPublishedRoute/permission``), and the app's permission before.
    case route(PortalPublishedRoute, before: PortalAppPermission)

    /// What the change is to: a path or `always-ask TYPE`; a record holds one change per key.
    public var key: String {
        switch self {
        case .directory(let path), .file(let path, _, _): path
        case .alwaysAsk(let type, _): "always-ask " + type
        case .route(let route, _): "route " + route.type + " " + route.app
        }
    }
}

/// What `schemebridge integrate enable --portal` did, in `$XDG_CONFIG_HOME/schemebridge/portal-integration`:
/// written (atomically) *before* anything is changed, with every change it is about to make, so
/// that a SIGKILL at any point leaves a record that says what to finish or to undo (see
/// ``PortalIntegration``). The file is binary (a file's bytes may be anything): a header line,
/// then `phase`, `way` and `desktops` lines, then the changes, each a line naming it followed by
/// its counted bytes.
public struct PortalIntegrationRecord: Sendable, Equatable {
    /// Where the record stands.
    public enum Phase: String, Sendable {
        /// The changes are being made (a record left so: `status` finishes them, `disable` undoes them).
        case enabling
        /// Every change was made.
        case enabled
        /// The changes are being undone (a record left so: the next command finishes that).
        case disabling
    }

    public var phase: Phase
    /// How the portal was told: ``PortalSelection/Way``.
    public var way: PortalSelection.Way
    /// The portal's `XDG_CURRENT_DESKTOP` written (the environment way), else the desktops the
    /// `portals.conf` file was chosen for.
    public var desktops: String
    /// The changes, in the order they are made (undone in reverse).
    public var changes: [PortalChange]
    /// The keys of changes being undone because they are no longer wanted (a re-run after
    /// `[Routes]` changed): the next command finishes undoing them and drops them.
    public var removing: [String]

    public init(phase: Phase, way: PortalSelection.Way, desktops: String, changes: [PortalChange], removing: [String] = []) {
        (self.phase, self.way, self.desktops, self.changes, self.removing) = (phase, way, desktops, changes, removing)
    }

    static let header = Array("schemebridge portal integration 1\n".utf8)

    /// The file's bytes.
    func encoded() -> [UInt8] {
        var out = Self.header
        func line(_ text: String) { out += Array((text + "\n").utf8) }
        func counted(_ name: String, _ bytes: [UInt8]?) {
            guard let bytes else { return line("\(name) missing") }
            line("\(name) \(bytes.count)")
            out += bytes
            out.append(0x0A)
        }
        line("phase \(phase.rawValue)")
        line("way \(way.rawValue)")
        counted("desktops", Array(desktops.utf8))
        for change in changes {
            switch change {
            case .directory(let path):
                counted("directory", Array(path.utf8))
            case .file(let path, let before, let after):
                counted("file", Array(path.utf8))
                counted("before", before)
                counted("after", after)
            case .alwaysAsk(let type, let before):
                counted("always-ask", Array(type.utf8))
                line("before \(before.word)")
            case .route(let route, let before):
                counted("route", Array(route.type.utf8))
                counted("app", Array(route.app.utf8))
                counted("handler", Array(route.storedHandler.utf8))
                switch before {
                case .noEntry: line("before no-entry")
                case .none: line("before none")
                case .strings(let strings):
                    line("before \(strings.count)")
                    for s in strings { counted("string", Array(s.utf8)) }
                }
            }
        }
        for key in removing { counted("removing", Array(key.utf8)) }
        line("end")
        return out
    }

    /// Reads the file's bytes; nil when they are not a whole record (a record is replaced
    /// atomically, so a torn one is not ours).
    static func decode(_ bytes: [UInt8]) -> PortalIntegrationRecord? {
        guard bytes.starts(with: header) else { return nil }
        var rest = bytes[header.count...]
        func nextLine() -> String? {
            guard let newline = rest.firstIndex(of: 0x0A) else { return nil }
            let text = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
            rest = rest[(newline + 1)...]
            return text
        }
        /// `name N` and N bytes and a line feed; .some(nil) for `name missing`.
        func counted(_ name: String) -> [UInt8]?? {
            guard let text = nextLine() else { return nil }
            if text == "\(name) missing" { return .some(nil) }
            guard text.hasPrefix(name + " "), let count = Int(text.dropFirst(name.count + 1)), count >= 0, count < rest.count,
                  rest[rest.startIndex + count] == 0x0A else { return nil }
            let value = Array(rest.prefix(count))
            rest = rest.dropFirst(count + 1)
            return .some(value)
        }
        guard let p = nextLine(), p.hasPrefix("phase "), let phase = Phase(rawValue: String(p.dropFirst(6))),
              let w = nextLine(), w.hasPrefix("way "), let way = PortalSelection.Way(rawValue: String(w.dropFirst(4))),
              let d = counted("desktops"), let d else { return nil }
        var changes: [PortalChange] = []
        var removing: [String] = []
        while true {
            let mark = rest
            guard let text = nextLine() else { return nil }
            if text == "end" { break }
            rest = mark
            if text.hasPrefix("directory ") {
                guard let path = counted("directory"), let path else { return nil }
                changes.append(.directory(path: String(decoding: path, as: UTF8.self)))
            } else if text.hasPrefix("file ") {
                guard let path = counted("file"), let path, let before = counted("before"), let after = counted("after") else { return nil }
                changes.append(.file(path: String(decoding: path, as: UTF8.self), before: before, after: after))
            } else if text.hasPrefix("always-ask ") {
                guard let type = counted("always-ask"), let type, let b = nextLine(), b.hasPrefix("before "),
                      let before = PortalAskState(word: String(b.dropFirst(7))) else { return nil }
                changes.append(.alwaysAsk(type: String(decoding: type, as: UTF8.self), before: before))
            } else if text.hasPrefix("route ") {
                guard let type = counted("route"), let type, let app = counted("app"), let app, let handler = counted("handler"), let handler,
                      let b = nextLine(), b.hasPrefix("before ") else { return nil }
                let word = b.dropFirst(7)
                let before: PortalAppPermission
                if word == "no-entry" { before = .noEntry } else if word == "none" { before = .none } else {
                    guard let n = Int(word), n >= 0, n <= 64 else { return nil }
                    var strings: [String] = []
                    for _ in 0..<n {
                        guard let s = counted("string"), let s else { return nil }
                        strings.append(String(decoding: s, as: UTF8.self))
                    }
                    before = .strings(strings)
                }
                changes.append(.route(PortalPublishedRoute(type: String(decoding: type, as: UTF8.self), app: String(decoding: app, as: UTF8.self),
                                                           storedHandler: String(decoding: handler, as: UTF8.self)), before: before))
            } else if text.hasPrefix("removing ") {
                guard let key = counted("removing"), let key else { return nil }
                removing.append(String(decoding: key, as: UTF8.self))
            } else {
                return nil
            }
        }
        guard rest.isEmpty else { return nil }
        return PortalIntegrationRecord(phase: phase, way: way, desktops: String(decoding: d, as: UTF8.self), changes: changes, removing: removing)
    }
}
