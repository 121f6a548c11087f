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
        all.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
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

    init(xdg: XDGDirectories) {
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
        return ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
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
        for levelLists in lists {
            for l in levelLists.values {
                for (id, schemes) in l.mentionedIDs { mentions[id, default: []].formUnion(schemes) }
            }
        }
        listMentions = mentions
        return (old?.mentionedSchemes ?? []).union(list?.mentionedSchemes ?? [])
    }

    mutating func rebuildLevels() {
        levels = mimeDirs.enumerated().map { (i, dir) in
            ResolverLevel(lists: listNames.compactMap { lists[i][$0] },
                          associationList: lists[i]["mimeapps.list"],
                          applicationsIndex: dir.applications)
        }
    }

    /// Re-resolves `schemes`; returns those whose resolution changed.
    mutating func resolve(_ schemes: Set<String>) -> Set<String> {
        var changed = Set<String>()
        for scheme in schemes {
            let new = HandlerResolver.resolve(scheme: scheme, levels: levels, context: self)
            let old = resolved[scheme] ?? .none
            if new != old {
                changed.insert(scheme)
                resolved[scheme] = new.handlers.isEmpty ? nil : new
            }
        }
        if !changed.isEmpty {
            sortedSchemes = resolved.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        return changed
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
