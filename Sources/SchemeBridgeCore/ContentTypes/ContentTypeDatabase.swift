import Synchronization

/// Content types as shared-mime-info defines them, read from the installed database — the
/// `mime.cache` that `update-mime-database` writes in `$XDG_DATA_HOME/mime` and each
/// `$XDG_DATA_DIRS/mime` (in that precedence) — and combined the way GLib combines them, so
/// that SchemeBridge and `gio info`/`xdg-open` give a file the same type (docs/CONTENT-TYPES.md
/// lists where and why they still differ). No GLib is linked.
///
/// ```swift
/// let types = ContentTypeDatabase(environment: env)
/// types.contentType(forName: "report.pdf")                  // "application/pdf"
/// try types.contentType(forFileDescriptor: fd, name: "x")   // fstat, then name, then content
/// types.guess(name: "notes", data: bytes)                   // ContentTypeGuess
/// types.parentChain(of: "image/svg+xml")                    // [svg, application/xml, text/plain?, …, octet-stream]
/// types.reloadIfChanged()                                   // after the watcher saw mime/ change
/// ```
///
/// Lookups read an immutable snapshot taken under a mutex, so they are safe from any thread and
/// never wait for a reload. Nothing here reads the process environment.
public final class ContentTypeDatabase: Sendable {
    /// The most bytes of a file's content ever read for detection: GLib's 4 KiB. (The database's
    /// magic may look further — ISO 9660 at 32 KiB — but `gio` never reads beyond 4 KiB, and
    /// agreeing with it matters more; see docs/CONTENT-TYPES.md.)
    public static let defaultSniffLimit = 4096

    /// The `mime` directories read, highest precedence first.
    public let directories: [String]
    /// The most content bytes a file detection reads.
    public let sniffLimit: Int
    private let data: Mutex<MimeData>

    /// The database of the `mime` directories of `environment`'s XDG data directories.
    public convenience init(environment: [String: String], sniffLimit: Int = ContentTypeDatabase.defaultSniffLimit) {
        self.init(mimeDirectories: XDGDirectories(environment: environment).mimeDirectories, sniffLimit: sniffLimit)
    }

    /// The database of these `mime` directories (highest precedence first).
    public init(mimeDirectories: [String], sniffLimit: Int = ContentTypeDatabase.defaultSniffLimit) {
        directories = mimeDirectories
        self.sniffLimit = max(sniffLimit, 1)
        data = Mutex(MimeData(loading: mimeDirectories))
    }

    var snapshot: MimeData { data.withLock { $0 } }

    // MARK: keeping current

    /// Reads every directory's `mime.cache` again.
    public func reload() {
        let fresh = MimeData(loading: directories)
        data.withLock { $0 = fresh }
    }

    /// Reloads when a `mime.cache` was replaced, changed, added or removed since the last load
    /// (a `stat` per directory); returns whether it did. Call it when a watcher reports a change
    /// in one of ``directories`` (`update-mime-database` renames a new cache into place), or
    /// before a detection that must see the latest state.
    @discardableResult
    public func reloadIfChanged() -> Bool {
        guard !snapshot.isCurrent else { return false }
        reload()
        return true
    }

    /// The caches of the last load that exist but could not be used, as sentences (a damaged
    /// or unknown-version `mime.cache`: its directory contributes no types).
    public var problems: [String] { snapshot.problems.map(\.description) }

    /// How many `mime.cache` files are in use.
    public var cacheCount: Int { snapshot.caches.count }

    // MARK: detection

    /// The type a file name gives, by the glob patterns alone: the best candidate, or nil when
    /// no pattern matches. A name with several candidates (`x.ogg`) needs its content to be
    /// sure: see ``guess(name:data:)``.
    public func contentType(forName name: String) -> String? {
        contentTypes(forName: name).first
    }

    /// Every type the glob patterns give `name` (its last path component), best first.
    public func contentTypes(forName name: String) -> [String] {
        snapshot.globMatches(forName: MimeData.lastComponent(Array(name.utf8))).map(\.type)
    }

    /// The type of `data`, with `name` (when given) weighed as GLib does; empty data is
    /// `application/x-zerosize` unless the name decides.
    public func contentType(forData data: [UInt8], name: String? = nil) -> String {
        guess(name: name, data: data).type
    }

    /// GLib's `g_content_type_guess`: name (when given; a path's last component, a trailing `/`
    /// meaning a directory) and content (when given) combined. A name with exactly one glob
    /// candidate decides; otherwise the content's magic (or text/binary test) does when its
    /// priority is 80 or more, else it picks the candidate it is a sub-class of, else the first
    /// candidate, uncertain. Content that looks like a desktop entry is `text/plain` when a name
    /// is given. The rules in full: docs/CONTENT-TYPES.md.
    public func guess(name: String?, data: [UInt8]?) -> ContentTypeGuess {
        let mime = snapshot
        let nameBytes = name.map { Array($0.utf8) }
        guard let data else { return mime.guess(name: nameBytes, data: nil) }
        return data.withUnsafeBufferPointer { mime.guess(name: nameBytes, data: $0) }
    }

    // MARK: hierarchy

    /// The canonical name of `type` (an alias such as `application/x-pdf` becomes
    /// `application/pdf`); `type` itself otherwise.
    public func canonicalType(_ type: String) -> String { snapshot.canonicalType(type) }

    /// The aliases of `type`'s canonical name, in byte order (`text/markdown` and
    /// `text/x-markdown` both give `["text/x-markdown"]`). An entry or a mimeapps list naming an
    /// alias names the type.
    public func aliases(of type: String) -> [String] {
        let mime = snapshot
        return mime.aliases(of: mime.canonicalType(type))
    }

    /// Whether `type` is `base` or a sub-class of it (aliases resolved; `text/*` types are
    /// `text/plain`, all but `inode/*` are `application/octet-stream`; `base` may be a
    /// super-type pattern such as `image/*`).
    public func isSubclass(_ type: String, of base: String) -> Bool { snapshot.isSubclass(type, of: base) }

    /// The parents the database declares for `type` (after resolving an alias), without the
    /// implicit ones.
    public func declaredParents(of type: String) -> [String] {
        let mime = snapshot
        return mime.declaredParents(of: mime.canonicalType(type)).map { mime.canonicalType($0) }
    }

    /// `type` and all it derives from, nearest first, ending with the implicit `text/plain`
    /// (for text types) and `application/octet-stream` (for all but `inode/*`): the order in
    /// which to look for a handler.
    public func parentChain(of type: String) -> [String] { snapshot.parentChain(of: type) }
}
