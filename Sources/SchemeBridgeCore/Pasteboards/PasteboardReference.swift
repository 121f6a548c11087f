/// How the `pasteboard` open option names the pasteboard to grant a handler: by its object (the
/// adapter reads the id from the path) or by name, which finds the caller's own.
public enum PasteboardReference: Sendable, Equatable {
    /// An object path; nil: a path that names no pasteboard.
    case object(id: String?)
    /// A name, looked up among the caller's own pasteboards.
    case name(String)
}

extension PasteboardReference {
    /// What the `pasteboard` option's text names: an object path (starting with `/`) under
    /// `prefix` + `/`, else a name.
    public init(_ text: String, pathPrefix prefix: String) {
        self = text.hasPrefix("/") ? .object(id: Self.id(inPath: text, prefix: prefix)) : .name(text)
    }

    /// The id in a pasteboard's object path `path` under `prefix` + `/` (nil: not one).
    public static func id(inPath path: String, prefix: String) -> String? {
        guard path.hasPrefix(prefix + "/") else { return nil }
        let id = String(path.dropFirst(prefix.count + 1))
        return PasteboardDisk.isID(id) ? id : nil
    }
}

extension PasteboardStore {
    /// The pasteboard `reference` names, which `caller` must own to grant it to a handler;
    /// returns its id. One the caller may not see is ``PasteboardError/noSuchPasteboard``, one it
    /// may only read ``PasteboardError/Kind/accessDenied``.
    public func grantable(_ reference: PasteboardReference, caller: Caller) throws(PasteboardError) -> String {
        let board: Pasteboard
        switch reference {
        case .object(let id):
            guard let id else { throw PasteboardError.noSuchPasteboard }
            board = try self.board(id, caller: caller).0
        case .name(let name):
            board = try findOwned(name: name, caller: caller)
        }
        guard board.access(for: caller) == .owner else {
            throw PasteboardError(.accessDenied, "only the pasteboard's owner may grant it to a handler")
        }
        return board.id
    }
}
