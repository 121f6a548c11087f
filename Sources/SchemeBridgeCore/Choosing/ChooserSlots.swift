import Synchronization

/// How many choosers may be open at once: one per app, two for all callers known only by their
/// executable's path together (a hard link to a program is a new path: one program must not take
/// every slot by running under many names), four in all. A person answers each chooser, so a
/// caller must not be able to stack them up.
public final class ChooserSlots: Sendable {
    /// Choosers open at once for one caller, for the path-only callers together, and in all.
    public static let perCaller = 1, perPathGroup = 2, total = 4
    /// Choosers open now, per ``key(for:)``.
    private let open = Mutex(KeyedCounts())

    public init() {}

    /// Whose slot an ask takes: the app id, `""` for the unidentified together, the executable's
    /// path for a caller known only by it (counted against ``perPathGroup`` as well).
    public static func key(for caller: Caller) -> String { caller.appID ?? "" }

    /// Takes a slot under `key`; false when the caller, the path group or the total is full.
    /// A slot taken must be given back with ``give(_:)``.
    public func take(_ key: String) -> Bool {
        open.withLock { o -> Bool in
            let paths = key.hasPrefix("/") ? o.total(matching: { $0.hasPrefix("/") }) : 0
            guard o[key] < Self.perCaller, paths < Self.perPathGroup, o.total < Self.total else { return false }
            o.add(key)
            return true
        }
    }

    /// Gives back a slot taken under `key`.
    public func give(_ key: String) { open.withLock { $0.remove(key) } }

    /// Choosers open now.
    public var openCount: Int { open.withLock { $0.total } }
}
