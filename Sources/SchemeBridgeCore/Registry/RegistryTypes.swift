/// Content types (documents): the same MIME Apps resolution as for schemes, for every type an
/// entry's `MimeType` lists. Which entries list a type is gathered once after each change of
/// the records (the first type query after it), so a query is dictionary probes plus the walk
/// of the lists — never a scan of the applications directories.
extension Registry {
    /// The eligible handlers and default of content type `type` (exactly that type; callers fall
    /// back along its parent chain themselves).
    public func resolution(forType type: String) -> HandlerResolution {
        let key = Registry.lowercasedASCII(type)
        if state.withLock({ $0.frozen != nil }) {
            // Started from the index, which stores scheme answers only: read the records now.
            writer.withLock { _ in materializeLocked() }
        }
        return state.withLock { m in
            if m.typeListings?.generation != m.recordGeneration {
                m.typeListings = (m.recordGeneration, Self.typeListings(m))
            }
            let listings = m.typeListings?.map[key] ?? [:]
            return HandlerResolver.resolve(type: key, levels: m.levels, context: m) { index in listings[index] ?? [] }
        }
    }

    /// The eligible handlers of content type `type`, the default first.
    public func handlers(forType type: String) -> [String] { resolution(forType: type).handlers }

    /// Makes `desktopID` the default for content type `type` as ``setDefault(scheme:desktopID:)``
    /// does for a scheme (`$XDG_CONFIG_HOME/mimeapps.list`, every other byte kept, atomic).
    /// The entry must list `type` or already be one of its handlers.
    @discardableResult
    public func setDefault(type: String, desktopID: String) throws(SetDefaultError) -> HandlerResolution {
        guard let key = try? PasteboardType.validated(type), !key.hasPrefix("x-scheme-handler/") else {
            throw .invalidHandler(desktopID: desktopID, scheme: type, reason: "'\(type)' is not a content type")
        }
        guard DesktopID.isValid(desktopID), let entry = entry(id: desktopID) else {
            throw .invalidHandler(desktopID: desktopID, scheme: key, reason: "no such application is installed (or it cannot be started)")
        }
        guard entry.mimeTypes.contains(key) || handlers(forType: key).contains(desktopID) else {
            throw .invalidHandler(desktopID: desktopID, scheme: key, reason: "it does not declare MimeType=\(key)")
        }
        let path = directories.userMimeappsList
        let changed = try writer.withLock { _ throws(SetDefaultError) -> Set<String> in
            try MimeAppsEditor.setDefault(key: key, desktopID: desktopID, listPath: path)
            return applyLocked([.list(level: 0, name: "mimeapps.list")])
        }
        publish(changed)
        return resolution(forType: key)
    }

    /// Content type → directory → eligible effective IDs listing it, byte-wise sorted.
    static func typeListings(_ m: RegistryModel) -> [String: [Int: [String]]] {
        var map: [String: [Int: [String]]] = [:]
        for (id, entry) in m.effective where !entry.mimeTypes.isEmpty {
            guard let dir = m.topDirectory(of: id) else { continue }
            for t in entry.mimeTypes { map[t, default: [:]][dir, default: []].append(id) }
        }
        for (t, dirs) in map {
            for (d, ids) in dirs { map[t]![d] = ids.sorted { RegistryModel.bytewiseLess($0, $1) } }
        }
        return map
    }
}
