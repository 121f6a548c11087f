import Glibc

/// The shared-mime-info database as loaded at one moment: the `mime.cache` of each `mime`
/// directory, highest precedence first (`$XDG_DATA_HOME/mime`, then each
/// `$XDG_DATA_DIRS/mime`). Immutable: a reload builds a new one.
///
/// How the caches combine is xdgmime's: a literal or an alias is taken from the first cache
/// that lists it; suffix, wildcard and magic matches are collected from all of them (magic:
/// the highest priority wins, the first cache on a tie); parents are merged.
///
/// A directory without a `mime.cache` contributes nothing. (GLib reads the `globs2`/`magic`
/// text files of such a directory only when no directory has a cache; `update-mime-database`
/// always writes one.)
struct MimeData: Sendable {
    /// The `mime` directories, in precedence order.
    let directories: [String]
    let caches: [MimeCache]
    /// The caches that exist but could not be used.
    let problems: [MimeCacheError]
    /// Each directory's `mime.cache` as it was when loaded (nil: there was none).
    let signatures: [FileSignature?]

    /// An empty database: no types known.
    init(directories: [String] = []) {
        self.directories = directories
        caches = []
        problems = []
        signatures = directories.map { _ in nil }
    }

    /// A database of caches already read (tests).
    init(caches: [MimeCache]) {
        directories = []
        self.caches = caches
        problems = []
        signatures = []
    }

    /// Reads the cache of every directory.
    init(loading directories: [String]) {
        var caches: [MimeCache] = []
        var problems: [MimeCacheError] = []
        var signatures: [FileSignature?] = []
        for dir in directories {
            let path = XDGDirectories.join(dir, "mime.cache")
            var st = stat()
            guard stat(path, &st) == 0 else {
                signatures.append(nil)
                continue
            }
            do {
                let cache = try MimeCache(path: path)
                caches.append(cache)
                signatures.append(cache.signature)
            } catch {
                problems.append(error)
                signatures.append(FileSignature(st))
            }
        }
        self.directories = directories
        self.caches = caches
        self.problems = problems
        self.signatures = signatures
    }

    /// Whether every directory's `mime.cache` is still the one loaded (same inode, size,
    /// modification and change times; still absent where it was absent).
    var isCurrent: Bool {
        for (dir, old) in zip(directories, signatures) {
            var st = stat()
            let now = stat(XDGDirectories.join(dir, "mime.cache"), &st) == 0 ? FileSignature(st) : nil
            if now != old { return false }
        }
        return true
    }

    /// The most bytes of content any magic rule looks at.
    var magicExtent: Int { caches.map(\.magicExtent).max() ?? 0 }

    /// The highest-priority magic match of `data` over all caches.
    func magic(_ data: UnsafeBufferPointer<UInt8>) -> (type: String, priority: Int)? {
        var best: (type: String, priority: Int)? = nil
        for cache in caches {
            if let m = cache.magic(data), m.priority > (best?.priority ?? 0) { best = m }
        }
        return best
    }

    /// The canonical name of `type` (itself when it is not an alias).
    func canonicalType(_ type: String) -> String {
        Array(type.utf8).withUnsafeBufferPointer { k in
            for cache in caches {
                if let canonical = cache.canonicalType(forAlias: k) { return canonical }
            }
            return type
        }
    }

    /// The aliases of `type` (already canonical): every name the caches list as an alias whose
    /// canonical name (taken from the first cache listing it) is `type`, in byte order.
    func aliases(of type: String) -> [String] {
        Array(type.utf8).withUnsafeBufferPointer { k in
            var result: [String] = []
            for cache in caches {
                for alias in cache.aliases(of: k) where !result.contains(alias) && canonicalType(alias) == type {
                    result.append(alias)
                }
            }
            return result.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    /// The parents the caches declare for `type` (already canonical), merged in precedence
    /// order without repeats.
    func declaredParents(of type: String) -> [String] {
        Array(type.utf8).withUnsafeBufferPointer { k in
            var result: [String] = []
            for cache in caches {
                for parent in cache.parents(of: k) ?? [] where !result.contains(parent) {
                    result.append(parent)
                }
            }
            return result
        }
    }
}
