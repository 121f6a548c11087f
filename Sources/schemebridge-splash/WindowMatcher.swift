import CX11
import Glibc

/// What identifies the handler's windows.
struct WindowCriteria {
    /// `_NET_STARTUP_ID` to look for.
    var startupID: String?
    /// `_NET_WM_PID` to look for (this process or a descendant).
    var pid: pid_t?
    /// WM_CLASS res_name or res_class to look for (new windows only), case-insensitive.
    var wmClass: String?

    /// Whether any window can match at all.
    var isEmpty: Bool { startupID == nil && pid == nil && wmClass == nil }
}

/// Finds the handler's first mapped top-level window.
///
/// Top-level windows are children of the root; with a reparenting window manager the client
/// window sits one or two levels down in a frame, so a candidate is checked together with its
/// descendants (at most ``maxDepth`` levels, ``maxWindows`` windows). A window counts once it is
/// mapped (`map_state` viewable, or unviewable because its frame is not mapped yet) and matches:
/// `_NET_STARTUP_ID` equals our id; `_NET_WM_PID` is the handler or one of its descendants; or —
/// for windows that were not mapped when the helper started, since the user may have another
/// window of the same app open — WM_CLASS name or class equals `--wm-class`.
final class WindowMatcher {
    /// Levels below a top-level window searched for the client window.
    static let maxDepth = 3
    /// Windows examined per check at most.
    static let maxWindows = 64

    private let display: OpaquePointer
    private let root: Window
    private let atoms: Atoms
    private let criteria: WindowCriteria
    private let ownWindow: Window
    private let ownPID = getpid()
    private var preexisting = Set<Window>()
    private var pidVerdicts: [UInt32: Bool] = [:]

    init(display: OpaquePointer, root: Window, atoms: Atoms, criteria: WindowCriteria, ownWindow: Window) {
        self.display = display
        self.root = root
        self.atoms = atoms
        self.criteria = criteria
        self.ownWindow = ownWindow
    }

    /// Records the windows mapped now as pre-existing (windows of another instance of the app
    /// the user has open: their WM_CLASS does not count) and checks every window present; call
    /// after selecting SubstructureNotify on the root, so nothing created in between is missed.
    /// An unmapped window present at start (the handler may have created it before the helper
    /// started) counts as new once mapped.
    func scanExisting() -> String? {
        var found: String?
        for top in children(of: root) where top != ownWindow {
            var visited: [Window] = []
            collect(top, depth: 0, into: &visited)
            for w in visited {
                if isMapped(w) { preexisting.insert(w) }
                // A client mapped later inside a window manager's frame is seen by its own MapNotify.
                _ = XSelectInput(display, w, PropertyChangeMask | StructureNotifyMask)
            }
            if found == nil { found = check(visited) }
        }
        return found
    }

    /// A window was created (a child of the root): watch its properties and mapping wherever it
    /// is reparented to, and check it.
    func windowCreated(_ window: Window) -> String? {
        guard !criteria.isEmpty, window != ownWindow else { return nil }
        _ = XSelectInput(display, window, PropertyChangeMask | StructureNotifyMask)
        return check([window])
    }

    /// A window was mapped: check it and its descendants (a frame holds the client).
    func windowMapped(_ window: Window) -> String? {
        guard !criteria.isEmpty, window != ownWindow else { return nil }
        var visited: [Window] = []
        collect(window, depth: 0, into: &visited)
        return check(visited)
    }

    /// A property changed: check the window when it is one the criteria look at.
    func propertyChanged(_ window: Window, atom: Atom) -> String? {
        guard !criteria.isEmpty, window != ownWindow, window != root else { return nil }
        guard atom == atoms.netStartupID || atom == atoms.netWMPID || atom == Atom(XA_WM_CLASS) else { return nil }
        return check([window])
    }

    /// A window was destroyed: forget it.
    func windowDestroyed(_ window: Window) {
        preexisting.remove(window)
    }

    // MARK: - Checking

    private func children(of window: Window) -> [Window] {
        var rootReturn: Window = 0, parentReturn: Window = 0
        var list: UnsafeMutablePointer<Window>?
        var count: UInt32 = 0
        guard XQueryTree(display, window, &rootReturn, &parentReturn, &list, &count) != 0, let list else { return [] }
        defer { XFree(list) }
        return (0..<Int(count)).map { list[$0] }
    }

    private func collect(_ window: Window, depth: Int, into visited: inout [Window]) {
        guard visited.count < Self.maxWindows else { return }
        visited.append(window)
        guard depth < Self.maxDepth else { return }
        for child in children(of: window) {
            collect(child, depth: depth + 1, into: &visited)
        }
    }

    private func check(_ windows: [Window]) -> String? {
        for w in windows where w != ownWindow {
            if let why = matches(w), isMapped(w) {
                return "window 0x\(String(w, radix: 16)) \(why)"
            }
        }
        return nil
    }

    private func isMapped(_ window: Window) -> Bool {
        var attributes = XWindowAttributes()
        guard XGetWindowAttributes(display, window, &attributes) != 0 else { return false }
        return attributes.map_state != IsUnmapped
    }

    /// Why `window` belongs to the handler, or nil.
    private func matches(_ window: Window) -> String? {
        if let id = criteria.startupID,
           let value = WindowProperties.string(display, window, atoms.netStartupID, type: 0),  // UTF8_STRING or STRING
           value.elementsEqual(id.utf8) {
            return "_NET_STARTUP_ID \(id)"
        }
        if let handler = criteria.pid, let pid = WindowProperties.cardinal(display, window, atoms.netWMPID),
           pid != UInt32(ownPID), isHandlerProcess(pid, handler: handler) {
            return "_NET_WM_PID \(pid)"
        }
        if let wanted = criteria.wmClass, !preexisting.contains(window),
           let cls = WindowProperties.wmClass(display, window) {
            let w = wanted.lowercased()
            if cls.name.lowercased() == w || cls.class.lowercased() == w {
                return "WM_CLASS \(cls.name).\(cls.class)"
            }
        }
        return nil
    }

    private func isHandlerProcess(_ pid: UInt32, handler: pid_t) -> Bool {
        if let verdict = pidVerdicts[pid] { return verdict }
        guard pid > 0, pid <= UInt32(Int32.max) else { return false }
        let verdict = ProcessTree.isSelfOrDescendant(pid_t(pid), of: handler)
        pidVerdicts[pid] = verdict
        return verdict
    }
}
