/// Who may answer a request or open its x-callback URLs: the connection `sender`, whose
/// process is `pid`, when it is the request's ``LaunchedHandler``
/// (``LaunchedHandler/includes(sender:pid:nameOwner:)``). A handler not started yet is nobody;
/// for an app being activated, the owner of its bus name is asked first (`ownerOf`: the bus).
public struct HandlerCheck: Sendable {
    /// The connection that calls.
    public let sender: String
    /// Its process, when the bus told us.
    public let pid: Int32?
    /// The unique name owning the activating handler's bus name, when one was asked.
    public let nameOwner: String?
    /// The caller's Flatpak app id when it is sandboxed (``LaunchedHandler/includes(sender:pid:nameOwner:sandboxAppID:)``).
    public let sandboxAppID: AppID?

    public init(sender: String, pid: Int32?, nameOwner: String? = nil, sandboxAppID: AppID? = nil) {
        self.sender = sender
        self.pid = pid
        self.nameOwner = nameOwner
        self.sandboxAppID = sandboxAppID
    }

    /// A check for `handler`: asks `ownerOf` for the owner of its bus name when it is being
    /// activated (not asked otherwise).
    public static func prepared(for handler: LaunchedHandler?, sender: String, pid: Int32?, sandboxAppID: AppID? = nil,
                                ownerOf: (String) async -> String?) async -> HandlerCheck {
        var nameOwner: String? = nil
        if let busName = handler?.activatingName { nameOwner = await ownerOf(busName) }
        return HandlerCheck(sender: sender, pid: pid, nameOwner: nameOwner, sandboxAppID: sandboxAppID)
    }

    /// Whether the caller is `handler` (nil, a handler not started yet, is nobody).
    public func isHandler(_ handler: LaunchedHandler?) -> Bool {
        handler?.includes(sender: sender, pid: pid, nameOwner: nameOwner, sandboxAppID: sandboxAppID) ?? false
    }

    /// Whether `sender`, whose process is `pid`, is `handler`, asking `ownerOf` as needed.
    public static func isHandler(_ handler: LaunchedHandler?, sender: String, pid: Int32?, sandboxAppID: AppID? = nil,
                                 ownerOf: (String) async -> String?) async -> Bool {
        await prepared(for: handler, sender: sender, pid: pid, sandboxAppID: sandboxAppID, ownerOf: ownerOf).isHandler(handler)
    }
}
