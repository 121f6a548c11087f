/// The resolved handlers of one scheme.
public struct HandlerResolution: Sendable, Equatable {
    /// The default handler's desktop ID, nil when no eligible handler exists.
    public var defaultHandler: DesktopID?
    /// Every eligible handler's desktop ID, the default first.
    public var handlers: [DesktopID]

    public init(defaultHandler: DesktopID?, handlers: [DesktopID]) {
        self.defaultHandler = defaultHandler
        self.handlers = handlers
    }

    /// No handler.
    public static let none = HandlerResolution(defaultHandler: nil, handlers: [])
}

/// One directory of the MIME Apps spec's precedence order, with the lists read in it.
struct ResolverLevel: Sendable {
    /// The lists of this directory that exist, in precedence order: `<desktop>-mimeapps.list`
    /// for each current desktop, then `mimeapps.list`.
    var lists: [MimeAppsList]
    /// The plain `mimeapps.list` (the only one whose associations count).
    var associationList: MimeAppsList?
    /// For an applications directory, its index (0 = highest precedence); nil for config dirs.
    var applicationsIndex: Int?
}

/// What the resolver needs to know about installed entries.
protocol ResolverContext {
    /// The index of the highest-precedence applications directory holding any file with this
    /// desktop ID (valid or not, hidden or not); nil when no directory has one.
    func topDirectory(of id: String) -> Int?
    /// Whether the effective (highest-precedence) entry with this ID is an eligible handler.
    func isEligible(_ id: String) -> Bool
    /// The eligible effective entries of applications directory `index` whose `MimeType` lists
    /// `scheme`, in the documented order (desktop ID, byte-wise ascending).
    func listingIDs(scheme: String, applicationsIndex index: Int) -> [String]
}

/// Resolution per the MIME Apps spec 1.0.1, sections "Adding/removing associations" and
/// "Default Application".
///
/// Associations (the handler list): directories are visited in precedence order; in each, the
/// `[Added Associations]` of its `mimeapps.list` are appended unless blacklisted, its
/// `[Removed Associations]` join the blacklist, the entries of that directory whose `MimeType`
/// lists the scheme are appended unless blacklisted, then every desktop ID present in that
/// directory joins the blacklist (so a lower directory cannot add, remove or list an ID that a
/// higher one holds). Entries of one directory that nothing orders come in desktop-ID order.
/// Only eligible entries are kept.
///
/// Default: the `[Default Applications]` lists are visited in precedence order (desktop-specific
/// before plain, directory by directory); the first ID that is installed, eligible and
/// associated (in the list above — so a removed association also vetoes a default) wins.
/// Failing that, the first association is the default.
enum HandlerResolver {
    static func resolve(scheme: String, levels: [ResolverLevel], context: some ResolverContext) -> HandlerResolution {
        var removed = Set<String>()
        return resolve(levels: levels, context: context, defaults: { $0.defaults[scheme] ?? [] }, added: { $0.added[scheme] ?? [] },
                       removed: { $0.removed[scheme] ?? [] }, blacklist: &removed) { index in
            context.listingIDs(scheme: scheme, applicationsIndex: index)
        }
    }

    /// The same rules for a content type known by `names` (its canonical name and its aliases,
    /// in byte order — the order of `update-desktop-database`'s keys, so GLib agrees): the lists'
    /// content-type groups, a list's IDs for every name in that order, and `listing` — the
    /// eligible effective entries of an applications directory whose `MimeType` lists one of
    /// the names, in the same order. `removed` holds the IDs removed for the types looked at
    /// before this one along a parent chain (none of them is associated with this one either)
    /// and gets this type's removals added.
    static func resolve(type names: [String], levels: [ResolverLevel], context: some ResolverContext,
                        removed: inout Set<String>, listing: (Int) -> [String]) -> HandlerResolution {
        func ids(_ table: KeyPath<MimeAppsList, [String: [String]]>) -> (MimeAppsList) -> [String] {
            { list in joined(names.map { list[keyPath: table][$0] ?? [] }) }
        }
        return resolve(levels: levels, context: context, defaults: ids(\.typeDefaults), added: ids(\.typeAdded),
                       removed: ids(\.typeRemoved), blacklist: &removed, listing: listing)
    }

    /// The lists one after the other, each ID once (where it first comes).
    static func joined(_ lists: [[String]]) -> [String] {
        guard lists.count > 1 else { return lists.first ?? [] }
        var seen = Set<String>()
        return lists.joined().filter { seen.insert($0).inserted }
    }

    private static func resolve(levels: [ResolverLevel], context: some ResolverContext,
                                defaults: (MimeAppsList) -> [String], added: (MimeAppsList) -> [String],
                                removed removedIDs: (MimeAppsList) -> [String], blacklist removed: inout Set<String>,
                                listing: (Int) -> [String]) -> HandlerResolution {
        var associations: [String] = []
        var associated = Set<String>()

        func maskedAbove(_ id: String, level: ResolverLevel) -> Bool {
            guard let k = level.applicationsIndex, let top = context.topDirectory(of: id) else { return false }
            return top < k
        }

        for level in levels {
            if let list = level.associationList {
                for id in added(list) where !removed.contains(id) && !maskedAbove(id, level: level) {
                    if associated.insert(id).inserted { associations.append(id) }
                }
                for id in removedIDs(list) where !maskedAbove(id, level: level) {
                    removed.insert(id)
                }
            }
            if let k = level.applicationsIndex {
                for id in listing(k) where !removed.contains(id) {
                    if associated.insert(id).inserted { associations.append(id) }
                }
            }
        }

        let eligible = associations.filter { context.isEligible($0) }
        guard !eligible.isEmpty else { return .none }
        let eligibleSet = Set(eligible)

        var chosen: String? = nil
        search: for level in levels {
            for list in level.lists {
                for id in defaults(list) where eligibleSet.contains(id) {
                    chosen = id
                    break search
                }
            }
        }
        let defaultID = chosen ?? eligible[0]
        var handlers = [defaultID]
        handlers.append(contentsOf: eligible.lazy.filter { $0 != defaultID })
        return HandlerResolution(defaultHandler: DesktopID(fileName: defaultID), handlers: handlers.map { DesktopID(fileName: $0) })
    }
}
