/// Content types (documents): the same MIME Apps resolution as for schemes, for every type an
/// entry's `MimeType` lists. Which entries list a type is gathered once after each change of
/// the records (the first type query after it), so a query is dictionary probes plus the walk
/// of the lists — never a scan of the applications directories.
extension Registry {
    /// The eligible handlers and default of content type `type` (exactly that type; callers fall
    /// back along its parent chain themselves, or use ``resolution(alongChain:)``). With
    /// ``contentTypes``, a type and its aliases are one type: entries and lists naming
    /// `text/x-markdown` count for `text/markdown`, as the shared-mime-info spec has it (and
    /// GLib does).
    public func resolution(forType type: String) -> HandlerResolution {
        resolution(alongChain: [type]).resolution
    }

    /// The resolution of the first type along `chain` (a type and its parents, nearest first)
    /// that has a handler, and that type (canonical); the first type and no handler when none
    /// has one. An application removed for a type (`[Removed Associations]`) is not a handler of
    /// the types after it either: the user took it away from this type, and a parent does not
    /// give it back (GLib's lookup along the chain does the same).
    public func resolution(alongChain chain: [String]) -> (type: String, resolution: HandlerResolution) {
        let found = resolutions(alongChain: chain, untilFound: true)
        guard let last = found.last, !last.resolution.handlers.isEmpty else { return (found.first?.type ?? "", .none) }
        return last
    }

    /// The apps a chooser offers for the first type of `chain` (its parent chain), as GIO offers
    /// them (`gio open --ask`, "Open With"): that type's handlers (default first), then each
    /// parent's in chain order (`text/markdown` → `text/plain`'s editors), each once. An app
    /// removed for a type is not brought back by its parents; `application/octet-stream`'s apps
    /// (hex editors, archivers) are offered only when nothing before it has any.
    public func handlersForChoosing(alongChain chain: [String]) -> [DesktopID] {
        var out: [DesktopID] = []
        var seen = Set<DesktopID>()
        for (type, found) in resolutions(alongChain: chain, untilFound: false) {
            if type == ContentTypeName.octetStream && !out.isEmpty { break }
            for id in found.handlers where seen.insert(id).inserted { out.append(id) }
        }
        return out
    }

    /// The resolution of each type along `chain` as ``resolution(alongChain:)`` sees it (the
    /// removals of the types before it carried), up to the first with a handler when
    /// `untilFound`.
    func resolutions(alongChain chain: [String], untilFound: Bool) -> [(type: String, resolution: HandlerResolution)] {
        let types = chain.map { typeNames(Registry.lowercasedASCII($0)) }
        if state.withLock({ $0.frozen != nil }) {
            // Started from the index, which stores scheme answers only: read the records now.
            writer.withLock { _ in materializeLocked() }
        }
        let key = (untilFound ? "1" : "0") + types.map(\.canonical).joined(separator: "\u{0}")
        return state.withLock { m in
            if m.typeResolutions.records != m.recordGeneration || m.typeResolutions.levels != m.levelsGeneration || m.typeResolutions.map.count >= 4096 {
                m.typeResolutions = (m.recordGeneration, m.levelsGeneration, [:])
            }
            if let known = m.typeResolutions.map[key] { return known }
            if m.typeListings?.generation != m.recordGeneration {
                m.typeListings = (m.recordGeneration, Self.typeListings(m))
            }
            var removed = Set<String>()
            var result: [(type: String, resolution: HandlerResolution)] = []
            for type in types {
                let listings = type.all.map { m.typeListings?.map[$0] ?? [:] }
                let found = HandlerResolver.resolve(type: type.all, levels: m.levels, context: m, removed: &removed) { index in
                    HandlerResolver.joined(listings.map { $0[index] ?? [] })
                }
                result.append((type.canonical, found))
                if untilFound && !found.handlers.isEmpty { break }
            }
            m.typeResolutions.map[key] = result
            return result
        }
    }

    /// The canonical name of lower-cased `type` and all its names (the canonical one and its
    /// aliases, lower-cased, in byte order).
    func typeNames(_ type: String) -> (canonical: String, all: [String]) {
        guard let contentTypes else { return (type, [type]) }
        let found = contentTypes.canonicalType(type)
        let canonical = Registry.lowercasedASCII(found)
        let all = Set([canonical] + contentTypes.aliases(of: found).map(Registry.lowercasedASCII))
        return (canonical, all.sorted { RegistryModel.bytewiseLess($0, $1) })
    }

    /// The eligible handlers of content type `type`, the default first.
    public func handlers(forType type: String) -> [DesktopID] { resolution(forType: type).handlers }

    /// Makes `desktopID` the default for content type `type` as ``setDefault(scheme:desktopID:)``
    /// does for a scheme (`$XDG_CONFIG_HOME/mimeapps.list`, every other byte kept, atomic).
    /// The entry must list `type` (or an alias of it) or already be one of its handlers. The
    /// line written names the canonical type.
    @discardableResult
    public func setDefault(type: String, desktopID id: DesktopID) throws(SetDefaultError) -> HandlerResolution {
        guard let validated = try? PasteboardType.validated(type), !validated.hasPrefix("x-scheme-handler/") else {
            throw .invalidHandler(desktopID: id, scheme: type, reason: "'\(type)' is not a content type")
        }
        let (key, names) = typeNames(validated)
        guard id.isValid, let entry = entry(id: id) else {
            throw .invalidHandler(desktopID: id, scheme: key, reason: "no such application is installed (or it cannot be started)")
        }
        guard entry.mimeTypes.contains(where: names.contains) || handlers(forType: key).contains(id) else {
            throw .invalidHandler(desktopID: id, scheme: key, reason: "it does not declare MimeType=\(key)")
        }
        let path = directories.userMimeappsList
        let changed = try writer.withLock { _ throws(SetDefaultError) -> Set<String> in
            try MimeAppsEditor.setDefault(key: key, desktopID: id, listPath: path)
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
