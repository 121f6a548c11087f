import Glibc

/// One `.desktop` file found in an applications directory.
struct AppFileRecord: Sendable, Equatable {
    enum State: Sendable, Equatable {
        /// An application entry; `eligible` when it can handle URLs.
        case application(DesktopEntry, eligible: Bool)
        /// A valid entry of another `Type`.
        case notApplication
        /// A file that could not be used (it still masks lower entries with its ID).
        case invalid
    }

    var relativePath: String
    var id: String
    var signature: FileSignature
    var state: State
    /// Read again at the next start even when its signature matches the registry index: it
    /// changed just before it was read (a later change could keep the same signature), it is
    /// invalid, or it gave warnings (which are logged again).
    var reread = false

    var eligibleEntry: DesktopEntry? {
        if case .application(let e, true) = state { return e }
        return nil
    }
}

/// The files of one applications directory.
struct AppDirModel: Sendable {
    var directory: ApplicationsDirectory
    /// Relative path → record.
    var files: [String: AppFileRecord] = [:]
    /// Desktop ID → the relative path used for it. Two paths can give one ID (`a/b-c.desktop`
    /// and `a-b/c.desktop`); the first in byte order is used, and the others wait in
    /// `collisions` (kept apart so the common case costs no array per ID).
    var idPath: [String: String] = [:]
    var collisions: [String: [String]] = [:]

    func path(for id: String) -> String? { idPath[id] }

    mutating func addPath(_ rel: String, for id: String) {
        guard let current = idPath[id] else {
            idPath[id] = rel
            return
        }
        if current == rel { return }
        var all = (collisions[id] ?? []) + [current, rel]
        all.sort { RegistryModel.bytewiseLess($0, $1) }
        idPath[id] = all.removeFirst()
        collisions[id] = all
    }

    mutating func removePath(_ rel: String, for id: String) {
        if idPath[id] == rel {
            if var rest = collisions[id], !rest.isEmpty {
                idPath[id] = rest.removeFirst()
                collisions[id] = rest.isEmpty ? nil : rest
            } else {
                idPath[id] = nil
            }
        } else if var rest = collisions[id] {
            rest.removeAll { $0 == rel }
            collisions[id] = rest.isEmpty ? nil : rest
        }
    }
}

/// Everything the registry knows, mutated only under its lock.
struct RegistryModel: Sendable, ResolverContext {
    var appDirs: [AppDirModel]
    var mimeDirs: [MimeAppsDirectory]
    var listNames: [String]
    /// Per mime level: file name → list (present files only).
    var lists: [[String: MimeAppsList]]
    var levels: [ResolverLevel] = []
    /// What reserved schemes are resolved with: ``levels`` under ``reservedRule``.
    var trustedLevels: [ResolverLevel] = []
    /// The reserved-scheme rule the answers are resolved under.
    var reservedRule: ReservedSchemeRule
    /// Every scheme some list mentions (in any group): the others are resolved from the
    /// entries' `MimeType` alone (``resolution(of:)``).
    var listedSchemes: Set<String> = []
    /// Desktop ID → bit set of the applications directories holding a file with that ID
    /// (bit 0 = highest precedence; at most 64 directories are indexed).
    var idDirs: [String: UInt64] = [:]
    /// Scheme → applications directory → eligible effective IDs listing the scheme.
    var listings: [String: [Int: Set<String>]] = [:]
    /// Desktop ID → its effective entry, when eligible.
    var effective: [String: DesktopEntry] = [:]
    /// Desktop ID → schemes that some mimeapps list mentions it for.
    var listMentions: [String: Set<String>] = [:]
    /// Scheme → resolution (only schemes with at least one handler).
    var resolved: [String: HandlerResolution] = [:]
    /// The keys of `resolved`, sorted.
    var sortedSchemes: [String] = []
    /// Counts changes to the file records (the registry index is rewritten when it moved).
    var recordGeneration = 0
    /// Content type → applications directory → eligible effective IDs listing it, built on the
    /// first type query after the records changed (``Registry/resolution(forType:)``).
    var typeListings: (generation: Int, map: [String: [Int: [String]]])?
    /// Desktop ID → the types it provides for picking (`X-SchemeBridge-Provides`), built on the
    /// first provider query after the records changed (``Registry/providers()``).
    var providerListing: (generation: Int, list: [(id: DesktopID, types: [PickType])])?
    /// The app-link entries as of a generation (`Registry.appLinkEntries`, issue 41).
    var appLinkListing: (generation: Int, list: [AppLinkEntry])?
    /// Counts changes to entries that declare app links (one appeared, changed or went): what
    /// ``Registry/changes(appLinks:)`` announces beside the schemes.
    var appLinkGeneration = 0
    /// Counts rebuilds of ``levels`` (a list changed).
    var levelsGeneration = 0
    /// Answers of ``Registry/resolutions(alongChain:untilFound:)`` since the records and lists
    /// last changed (at most 4,096 chains): a type's answer is computed once, not per open.
    var typeResolutions: (records: Int, levels: Int, map: [String: [(type: String, resolution: HandlerResolution)]]) = (-1, -1, [:])
    /// While set, the applications directories' part of the model is empty and lookups are
    /// answered from the index (see ``FrozenIndex``); cleared by ``Registry`` before any change.
    var frozen: FrozenIndex?

    init(xdg: XDGDirectories, reservedRule: ReservedSchemeRule) {
        self.reservedRule = reservedRule
        appDirs = xdg.applicationsDirectories.map { AppDirModel(directory: $0) }
        mimeDirs = xdg.mimeappsDirectories
        listNames = xdg.mimeappsFileNames
        lists = Array(repeating: [:], count: mimeDirs.count)
        rebuildLevels()
    }

    // MARK: ResolverContext

    func topDirectory(of id: String) -> Int? { idDirs[id].map { $0.trailingZeroBitCount } }

    func isEligible(_ id: String) -> Bool { effective[id] != nil }

    func listingIDs(scheme: String, applicationsIndex index: Int) -> [String] {
        guard let ids = listings[scheme]?[index] else { return [] }
        if ids.count == 1 { return [ids.first!] }
        return ids.sorted { RegistryModel.bytewiseLess($0, $1) }
    }

    // MARK: queries

    func effectiveRecord(_ id: String) -> (dir: Int, record: AppFileRecord)? {
        guard let top = topDirectory(of: id), let rel = appDirs[top].path(for: id),
              let record = appDirs[top].files[rel] else { return nil }
        return (top, record)
    }

    func signatures(dir: Int, under prefix: String) -> [String: FileSignature] {
        var result: [String: FileSignature] = [:]
        for (rel, record) in appDirs[dir].files where prefix.isEmpty || rel.hasPrefix(prefix + "/") {
            result[rel] = record.signature
        }
        return result
    }

    // MARK: updates

    /// Puts (or removes, when `record` is nil) the file at `relativePath`; returns the schemes
    /// whose resolution may have changed.
    mutating func setRecord(dir: Int, relativePath: String, record: AppFileRecord?) -> Set<String> {
        var affected = Set<String>()
        setRecord(dir: dir, relativePath: relativePath, record: record, affected: &affected)
        return affected
    }

    /// ``setRecord(dir:relativePath:record:)``, adding the affected schemes to `affected`.
    mutating func setRecord(dir: Int, relativePath: String, record: AppFileRecord?, affected: inout Set<String>) {
        let id = record?.id ?? appDirs[dir].files[relativePath]?.id ?? DesktopID.make(relativePath: relativePath)
        if record == nil && appDirs[dir].files[relativePath] == nil { return }
        let before = effectiveRecord(id)
        recordGeneration &+= 1

        if appDirs[dir].files.removeValue(forKey: relativePath) != nil {
            appDirs[dir].removePath(relativePath, for: id)
        }
        if let record {
            appDirs[dir].files[relativePath] = record
            appDirs[dir].addPath(relativePath, for: id)
        }
        let bit = UInt64(1) << UInt64(dir)
        if appDirs[dir].path(for: id) == nil {
            let remaining = (idDirs[id] ?? 0) & ~bit
            idDirs[id] = remaining == 0 ? nil : remaining
        } else {
            idDirs[id, default: 0] |= bit
        }

        let after = effectiveRecord(id)
        if [before, after].contains(where: { $0?.record.eligibleEntry.map(ResolvedSnapshot.declaresAppLinks) == true }) {
            appLinkGeneration &+= 1
        }
        if let mentioned = listMentions[id] { affected.formUnion(mentioned) }
        if let b = before, let e = b.record.eligibleEntry {
            for s in e.schemes {
                listings[s]?[b.dir]?.remove(id)
                if listings[s]?[b.dir]?.isEmpty == true { listings[s]?[b.dir] = nil }
                if listings[s]?.isEmpty == true { listings[s] = nil }
                affected.insert(s)
            }
            effective[id] = nil
        }
        if let a = after, let e = a.record.eligibleEntry {
            for s in e.schemes {
                listings[s, default: [:]][a.dir, default: []].insert(id)
                affected.insert(s)
            }
            effective[id] = e
        }
    }

    /// Puts (or removes) the list `name` of mime level `level`; returns the affected schemes.
    mutating func setList(level: Int, name: String, list: MimeAppsList?) -> Set<String> {
        let old = lists[level][name]
        if old == list { return [] }
        lists[level][name] = list
        rebuildLevels()
        var mentions: [String: Set<String>] = [:]
        var mentioned = Set<String>()
        for levelLists in lists {
            for l in levelLists.values {
                for (id, schemes) in l.mentionedIDs { mentions[id, default: []].formUnion(schemes) }
                mentioned.formUnion(l.mentionedSchemes)
            }
        }
        listMentions = mentions
        listedSchemes = mentioned
        return (old?.mentionedSchemes ?? []).union(list?.mentionedSchemes ?? [])
    }

    mutating func rebuildLevels() {
        levelsGeneration &+= 1
        levels = mimeDirs.enumerated().map { (i, dir) in
            ResolverLevel(lists: listNames.compactMap { lists[i][$0] },
                          associationList: lists[i]["mimeapps.list"],
                          applicationsIndex: dir.applications)
        }
        trustedLevels = reservedRule.trustedLevels(levels)
    }

    /// The schemes that putting `reservedSchemes` in force would resolve again: those some list
    /// mentions whose reservation changes (the others resolve alike either way).
    func schemesAffected(reserving reservedSchemes: Set<String>) -> Set<String> {
        var new = reservedRule
        new.reservedSchemes = reservedSchemes
        return listedSchemes.filter { reservedRule.applies(to: $0) != new.applies(to: $0) }
    }

    /// The resolution of `scheme` from the current state (``HandlerResolver``).
    func resolution(of scheme: String) -> HandlerResolution {
        let levels = reservedRule.applies(to: scheme) ? trustedLevels : levels
        guard listedSchemes.contains(scheme) else {
            let fast = resolutionFromListings(scheme)
            assert(fast == HandlerResolver.resolve(scheme: scheme, levels: levels, context: self))
            return fast
        }
        return HandlerResolver.resolve(scheme: scheme, levels: levels, context: self)
    }

    /// What ``HandlerResolver`` answers for a scheme that no list mentions (most schemes), in a
    /// few lookups: the entries listing it, directory by directory in precedence order (each in
    /// desktop-ID order), the first the default. `listings` holds only eligible effective
    /// entries, each under its one directory, so nothing is left to filter. (A start with
    /// thousands of schemes resolves each in about a microsecond.)
    private func resolutionFromListings(_ scheme: String) -> HandlerResolution {
        guard let byDirectory = listings[scheme] else { return .none }
        var handlers: [DesktopID] = []
        for level in levels {
            guard let k = level.applicationsIndex, let ids = byDirectory[k] else { continue }
            if ids.count == 1 {
                handlers.append(DesktopID(fileName: ids.first!))
            } else {
                handlers.append(contentsOf: ids.sorted { RegistryModel.bytewiseLess($0, $1) }.map { DesktopID(fileName: $0) })
            }
        }
        return handlers.isEmpty ? .none : HandlerResolution(defaultHandler: handlers[0], handlers: handlers)
    }

    /// Re-resolves `schemes`; returns those whose resolution changed.
    mutating func resolve(_ schemes: Set<String>) -> Set<String> {
        var changed = Set<String>()
        if resolved.isEmpty { resolved.reserveCapacity(schemes.count) }
        for scheme in schemes {
            let new = resolution(of: scheme)
            // One hash each: the old value comes back from the update.
            let old = new.handlers.isEmpty ? resolved.removeValue(forKey: scheme) : resolved.updateValue(new, forKey: scheme)
            if new != old ?? .none { changed.insert(scheme) }
        }
        if !changed.isEmpty {
            // Schemes are ASCII: the standard order is the byte order, and its ASCII path is fast.
            sortedSchemes = resolved.keys.sorted()
        }
        return changed
    }

    /// Fills the applications directories at once (the first build): the same state as
    /// ``setRecord(dir:relativePath:record:affected:)`` for each record, without its per-record
    /// bookkeeping. `records[i]` are the files of directory `i`, whose model must be empty.
    /// Returns every scheme to resolve.
    mutating func load(_ records: [[AppFileRecord]]) -> Set<String> {
        for (dir, list) in records.enumerated() where !list.isEmpty {
            precondition(appDirs[dir].files.isEmpty, "load() is for an empty model")
            appDirs[dir].files.reserveCapacity(list.count)
            appDirs[dir].idPath.reserveCapacity(list.count)
            for r in list {
                appDirs[dir].files[r.relativePath] = r
                appDirs[dir].addPath(r.relativePath, for: r.id)
            }
        }
        let total = records.reduce(0) { $0 + $1.count }
        idDirs.reserveCapacity(total)
        effective.reserveCapacity(total)
        for dir in appDirs.indices {
            let bit = UInt64(1) << UInt64(dir)
            for (id, rel) in appDirs[dir].idPath {
                if let bits = idDirs[id] {
                    idDirs[id] = bits | bit
                    continue
                }
                idDirs[id] = bit
                guard let e = appDirs[dir].files[rel]?.eligibleEntry else { continue }
                effective[id] = e
                for s in e.schemes {
                    listings[s, default: [:]][dir, default: []].insert(id)
                }
            }
        }
        recordGeneration &+= 1
        return allSchemes
    }

    /// A digest of every list read (levels, names, groups, keys and values) and of the
    /// reserved-scheme rule: the index's stored answers hold while it is the same.
    var listsDigest: UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ s: String) {
            for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
            h = (h ^ 0xFF) &* 0x100_0000_01B3
        }
        mix(reservedRule.fingerprint)
        for (level, byName) in lists.enumerated() {
            for name in byName.keys.sorted() {
                guard let list = byName[name] else { continue }
                mix("\(level)/\(name)")
                for (group, table) in [("d", list.defaults), ("a", list.added), ("r", list.removed)] {
                    mix(group)
                    for key in table.keys.sorted() {
                        mix(key)
                        for id in table[key] ?? [] { mix(id) }
                    }
                }
            }
        }
        return h
    }

    /// What the index stores of the answers, or nil when they may be stale (an entry whose
    /// `TryExec` verdict changed since it was read: `PATH` changes are not watched).
    func resolvedSnapshot(searchPath: [String]) -> ResolvedSnapshot? {
        var programs: [String: Bool] = [:]
        for dir in appDirs {
            for record in dir.files.values {
                guard case .application(let e, let eligible) = record.state, let program = e.tryExec else { continue }
                let found = programs[program] ?? (ProgramLookup.find(program, searchPath: searchPath) != nil)
                programs[program] = found
                if (e.ineligibility(searchPath: searchPath) == nil) != eligible { return nil }
            }
        }
        var effectiveRows: [ResolvedSnapshot.Row] = []
        effectiveRows.reserveCapacity(effective.count)
        for (id, entry) in effective {
            guard let top = topDirectory(of: id), let rel = appDirs[top].path(for: id) else { return nil }
            effectiveRows.append((id, top, rel, entry.execProgram, ResolvedSnapshot.declaresAppLinks(entry)))
        }
        effectiveRows.sort { RegistryModel.bytewiseLess($0.id, $1.id) }
        // The application entries each effective one masks (lower directories, same ID), highest first.
        var masked: [ResolvedSnapshot.Masked] = []
        for (row, e) in effectiveRows.enumerated() {
            guard var rest = idDirs[e.id] else { continue }
            rest &= rest - 1
            while rest != 0 {
                let dir = rest.trailingZeroBitCount
                rest &= rest - 1
                if let rel = appDirs[dir].path(for: e.id), let record = appDirs[dir].files[rel], case .application = (record.state) {
                    masked.append((row, dir, rel))
                }
            }
        }
        return ResolvedSnapshot(
            listsDigest: listsDigest,
            tryExec: programs.keys.sorted().map { ($0, programs[$0]!) },
            resolved: sortedSchemes.compactMap { s in resolved[s].map { (s, $0.handlers.map(\.fileName)) } },
            effective: effectiveRows, masked: masked)
    }

    /// Byte-wise (UTF-8, so code point) order of two strings, as `memcmp` gives it.
    static func bytewiseLess(_ a: String, _ b: String) -> Bool {
        let r = a.utf8.withContiguousStorageIfAvailable { pa in
            b.utf8.withContiguousStorageIfAvailable { pb -> Bool in
                let n = min(pa.count, pb.count)
                let c = n == 0 ? 0 : memcmp(pa.baseAddress!, pb.baseAddress!, n)
                return c != 0 ? c < 0 : pa.count < pb.count
            }
        }
        if let r, let r { return r }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Every scheme that anything mentions (for a full resolve).
    var allSchemes: Set<String> {
        var result = Set(listings.keys)
        for levelLists in lists {
            for l in levelLists.values { result.formUnion(l.mentionedSchemes) }
        }
        result.formUnion(resolved.keys)
        return result
    }
}
