/// An application that declares a scheme (`MimeType=x-scheme-handler/…`) but is not one of its
/// handlers, and why: its `Exec` cannot be run (quoting, an empty or unknown field code), its
/// `TryExec` program is missing, it is `Hidden`, or the router refuses it (a reserved scheme
/// claimed from a directory the user's programs can write, an entry that hands URLs back to
/// SchemeBridge). What `handlers` shows beside the handlers (issue 27, item 4).
public struct SkippedHandler: Sendable, Equatable {
    /// The desktop id, e.g. `org.example.Broken.desktop`.
    public var desktopID: DesktopID
    /// The desktop file.
    public var path: String
    /// Why it is skipped, for people.
    public var reason: String

    public init(desktopID: DesktopID, path: String, reason: String) {
        self.desktopID = desktopID
        self.path = path
        self.reason = reason
    }
}

extension Registry {
    /// The effective application entries that declare `scheme` (any case) but are not eligible
    /// (``DesktopEntry/ineligibility(searchPath:)``), in desktop-id byte order. Served from the
    /// index, the records are read first (as ``maskedEntries(id:)`` does).
    public func ineligibleEntries(declaring scheme: String) -> [SkippedHandler] {
        let key = Registry.lowercasedASCII(scheme)
        if state.withLock({ $0.frozen != nil }) { writer.withLock { _ in materializeLocked() } }
        let searchPath = directories.executableSearchPath
        return state.withLock { m in
            m.idDirs.keys.sorted { RegistryModel.bytewiseLess($0, $1) }.compactMap { id in
                guard let (_, record) = m.effectiveRecord(id), case .application(let e, let eligible) = record.state,
                      !eligible, e.schemes.contains(key) else { return nil }
                return SkippedHandler(desktopID: DesktopID(fileName: id), path: e.path, reason: e.ineligibility(searchPath: searchPath) ?? "not eligible")
            }
        }
    }
}

extension URLRouter {
    /// The applications declaring `scheme` that are not its handlers, with the reason: the
    /// registry's ineligible entries, then eligible ones the router refuses.
    public func skippedHandlers(forScheme scheme: String) -> [SkippedHandler] {
        let key = Registry.lowercasedASCII(scheme)
        noticeConfigChanges()
        let refused: [SkippedHandler] = registry.handlers(forScheme: key).compactMap { id in
            guard let e = registry.entry(id: id), e.schemes.contains(key) else { return nil }
            if routesBackToUs(e) { return SkippedHandler(desktopID: id, path: e.path, reason: "it hands URLs back to SchemeBridge") }
            if isHijack(e, scheme: key) {
                return SkippedHandler(desktopID: id, path: e.path,
                                      reason: "'\(key)' is a reserved scheme and this entry is in a directory your programs can write (name it in ~/.config/mimeapps.list to allow it)")
            }
            return nil
        }
        return registry.ineligibleEntries(declaring: key) + refused
    }
}
