/// The process a request's handler runs as, once it was started: who may answer the request
/// (`Reply`) and who may open the x-callback URLs handed to it (``CallbackRoutes``).
public enum LaunchedHandler: Sendable, Equatable {
    /// A spawned process: it and its descendants, while it runs.
    case spawned(HandlerProcess)
    /// A D-Bus-activated app being started: whoever owns `busName` when it calls (it may call
    /// from inside its `Open`, before the activation is over).
    case activating(busName: String)
    /// A D-Bus-activated app: the unique name that owned its bus name, and its process (the
    /// name owner's descendants count while it runs).
    case activated(owner: String, process: HandlerProcess?)

    /// Whether the connection `sender`, whose process is `pid`, is this handler.
    /// `nameOwner`: for ``activating(busName:)``, the unique name that owns the bus name now.
    /// `sandboxAppID`: the caller's Flatpak app id when it is sandboxed (its calls come from its
    /// xdg-dbus-proxy, outside the handler's process tree: ``HandlerProcess/sandboxAppID``); it
    /// counts when that id is the handler's and its process is tied to the handler's sandbox
    /// (``FlatpakProxyLink``): a forged `/.flatpak-info` alone is not enough.
    public func includes(sender: String, pid: Int32?, nameOwner: String?, sandboxAppID: AppID? = nil) -> Bool {
        if let sandboxAppID, let pid, let process = self.process, process.sandboxAppID == sandboxAppID,
           FlatpakProxyLink.links(pid, to: process) { return true }
        switch self {
        case .activating:
            return nameOwner != nil && nameOwner == sender
        case .spawned(let process):
            return pid.map { ProcessLineage.isSelfOrDescendant($0, of: process) } ?? false
        case .activated(let owner, let process):
            if sender == owner { return true }
            guard let pid, let process else { return false }
            return ProcessLineage.isSelfOrDescendant(pid, of: process)
        }
    }

    /// The held process, when there is one.
    var process: HandlerProcess? {
        switch self {
        case .spawned(let process): return process
        case .activated(_, let process): return process
        case .activating: return nil
        }
    }

    /// The bus name to ask the owner of before ``includes(sender:pid:nameOwner:)`` (an activation under way).
    public var activatingName: String? {
        if case .activating(let name) = self { return name }
        return nil
    }
}
