/// A share target an app declares in its own desktop entry: a desktop action listed in
/// `Actions=` whose `[Desktop Action X]` group carries `X-SchemeBridge-Share-Types=` (content
/// types, `type/*` and `*/*` wildcards) and optionally `X-SchemeBridge-Share-MaxItems=N`. The
/// action's `Name=` and `Icon=` are what a share sheet shows; its `Exec=` receives the shared
/// files (or the entry is `DBusActivatable` and gets `ActivateAction`). Parsed with the entry, so
/// targets appear and vanish live, as schemes do.
public struct ShareAction: Sendable, Equatable {
    /// The action's identifier in `Actions=` (the target id is `<desktop id>:<action>`).
    public let action: String
    /// The action's localized `Name=` (control characters become spaces; at most ``maximumNameBytes``).
    public let name: String
    /// The action's `Icon=` (a theme name or an absolute path), nil when none or unusable.
    public let icon: String?
    /// The action's `Exec=`, unescaped; nil for a `DBusActivatable` app's action without one.
    public let exec: String?
    /// The accepted content types, lower-cased: `type/subtype`, `type/*` or `*/*`.
    public let types: [String]
    /// `X-SchemeBridge-Share-MaxItems=`: the most items one share may hand it (nil: no limit).
    public let maxItems: Int?

    /// The key naming the accepted types in an action group.
    public static let typesKey = "X-SchemeBridge-Share-Types"
    /// The key naming the most items an action accepts.
    public static let maxItemsKey = "X-SchemeBridge-Share-MaxItems"
    /// The most share actions kept of one entry (the rest are ignored with a warning).
    public static let maximumActions = 32
    /// The most types kept of one action.
    public static let maximumTypes = 64
    /// The longest name kept (in bytes; longer names are cut at a character boundary).
    public static let maximumNameBytes = 256
    /// The longest icon accepted (in bytes).
    public static let maximumIconBytes = 1024

    public init(action: String, name: String, icon: String?, exec: String?, types: [String], maxItems: Int?) {
        self.action = action
        self.name = name
        self.icon = icon
        self.exec = exec
        self.types = types
        self.maxItems = maxItems
    }

    /// The parsed `Exec`, nil when there is none (or it is invalid, which parsing refused).
    public var execCommand: ExecCommand? { exec.flatMap { try? ExecCommand($0) } }

    /// The share actions of an entry's key file: each action in `Actions=` whose group declares
    /// ``typesKey``. A declaration that cannot be used (no group, no name, no valid type, a bad
    /// `MaxItems`, an invalid `Exec`, or no `Exec` for an app that is not `DBusActivatable`) is
    /// skipped and its reason added to `warnings`.
    static func parse(_ keyFile: KeyFile, entryGroup: KeyFile.Group, id: String, path: String, locale: LocaleMatcher,
                      dbusActivatable: Bool, warnings: inout [KeyFileError]) -> [ShareAction] {
        guard let listed = entryGroup.stringList("Actions") else { return [] }
        var found: [ShareAction] = []
        var seen = Set<String>()
        for action in listed where !action.isEmpty && seen.insert(action).inserted {
            guard let group = keyFile.group("Desktop Action \(action)"), group.rawValue(typesKey) != nil else { continue }
            func skip(_ why: String) {
                warnings.append(KeyFileError(path: path, line: group.line, message: "share target '\(String(action.prefix(64)))' skipped: \(why)"))
            }
            guard found.count < maximumActions else { skip("more than \(maximumActions) share targets in one entry"); break }
            guard isValidActionName(action) else { skip("an action identifier may hold only A-Z, a-z, 0-9 and '-'"); continue }
            guard !id.hasPrefix(ShareTargetID.builtinPrefix) else { skip("desktop ids starting with '\(ShareTargetID.builtinPrefix)' are reserved"); continue }
            guard let rawName = group.localizedString("Name", matcher: locale), !rawName.isEmpty else { skip("the action has no Name="); continue }
            let types = Self.types(group.stringList(typesKey) ?? [])
            guard !types.valid.isEmpty else { skip("\(typesKey)= names no valid content type (type/subtype, type/* or */*)"); continue }
            if !types.invalid.isEmpty {
                warnings.append(KeyFileError(path: path, line: group.line, message: "share target '\(action)': ignored \(types.invalid.count) invalid type(s) in \(typesKey)="))
            }
            var maxItems: Int? = nil
            if let raw = group.string(maxItemsKey) {
                guard let n = Int(raw), n > 0, n <= 1_000_000 else { skip("\(maxItemsKey)= must be a whole number from 1 to 1000000"); continue }
                maxItems = n
            }
            let exec = group.string("Exec").flatMap { $0.isEmpty ? nil : $0 }
            if let exec {
                do throws(ExecError) { _ = try ExecCommand(exec) } catch { skip("its Exec= is invalid: \(error)"); continue }
            } else if !dbusActivatable {
                skip("the action has no Exec= and the app is not DBusActivatable"); continue
            }
            found.append(ShareAction(action: action, name: shown(rawName), icon: icon(group.localizedString("Icon", matcher: locale)),
                                     exec: exec, types: types.valid, maxItems: maxItems))
        }
        return found
    }

    /// Whether `action` is a desktop action identifier (the spec's key characters).
    public static func isValidActionName(_ action: String) -> Bool {
        !action.isEmpty && action.utf8.count <= 128 && action.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-")
        }
    }

    /// The valid type patterns among `list` (lower-cased, deduplicated, at most ``maximumTypes``)
    /// and the invalid ones.
    static func types(_ list: [String]) -> (valid: [String], invalid: [String]) {
        var valid: [String] = [], invalid: [String] = []
        for raw in list.prefix(maximumTypes * 4) where !raw.isEmpty {
            if let t = SharePattern.normalized(raw) {
                if !valid.contains(t), valid.count < maximumTypes { valid.append(t) }
            } else {
                invalid.append(raw)
            }
        }
        return (valid, invalid)
    }

    /// `name` as a sheet may show it: control characters as spaces, at most ``maximumNameBytes``.
    static func shown(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            let s = scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar
            guard out.utf8.count + String(s).utf8.count <= maximumNameBytes else { break }
            out.unicodeScalars.append(s)
        }
        return out
    }

    /// `icon` when usable: not empty, at most ``maximumIconBytes``, no control characters.
    static func icon(_ icon: String?) -> String? {
        guard let icon, !icon.isEmpty, icon.utf8.count <= maximumIconBytes,
              !icon.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return icon
    }
}
