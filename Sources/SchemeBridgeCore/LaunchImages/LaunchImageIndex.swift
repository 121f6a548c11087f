import Synchronization
import Glibc

/// Finds the launch image of a handler for a scheme, by the iOS naming convention on disk
/// (docs/CONTRACT.md, "Launch images" in docs/GUIDE.md).
///
/// The directory is the entry's `X-LaunchImageDir` (absolute, or relative to the entry's file),
/// else `<data dir>/launch-images/<desktop id without .desktop>/`; the base name is
/// `X-LaunchImage` (default `Default`). For scheme `s` at scale `N` the candidates are, in order:
/// 1. `<base>-s@Nx.png`
/// 2. `<base>-s.png`
/// 3. `<base>-s@Mx.png` for the nearest other scale `M` (ties: the larger)
/// 4. `<base>@Nx.png`
/// 5. `<base>.png`
/// 6. `<base>@Mx.png` for the nearest other scale
///
/// Names match case-insensitively (schemes are case-insensitive); only regular files (or
/// symlinks to them) count.
///
/// Each directory's listing is kept in memory: a lookup is one `stat` of the directory (its
/// modification time says whether the listing is still current) and hash probes — never a
/// directory scan on the hot path unless the directory changed. A listing read less than a
/// second after the directory's last change is re-read on the next lookup, so a file added in
/// the same clock tick is not missed.
///
/// A listing reads at most ``maximumFiles`` entries. A directory found to hold more is never
/// listed again: its lookups `stat` the few candidate names instead (each name as the entry
/// and scheme spell it, and lower-cased; at most 36), so a directory of 200,000 files costs a
/// lookup no more than a small one.
public final class LaunchImageIndex: Sendable {
    /// The most files of one directory that are indexed.
    public static let maximumFiles = 4096

    /// One directory's PNG files: lower-cased stem (`default-todolist`) → scale → file name
    /// (scale 0 is the file without an `@Nx` suffix).
    struct Listing: Sendable {
        var stems: [String: [Int: String]] = [:]
        var exists = false
        var modified: (Int, Int) = (0, 0)
        /// Re-read on the next lookup: the directory changed within a second of the read.
        var racy = true
        /// More than ``maximumFiles`` entries: looked up by name, never listed again.
        var huge = false
    }

    private let listings = Mutex<[String: Listing]>([:])
    /// How many directory listings were read (for tests: lookups of unchanged directories read none).
    let directoryReads = Atomic<Int>(0)

    public init() {}

    /// The launch image `entry` shows for `scheme` at `scale`, or nil when it has none.
    public func image(for entry: DesktopEntry, scheme: String, scale: Int) -> String? {
        guard let dir = Self.directory(for: entry) else { return nil }
        let base = Self.baseName(for: entry)
        let listing = current(dir)
        guard listing.exists else { return nil }
        let scale = DisplayScale.clamp(scale)
        let specificStem = base + "-" + Registry.lowercasedASCII(scheme)
        if listing.huge {
            return Self.probe(dir, stems: [specificStem, base], scale: scale)
        }
        let specific = specificStem.lowercased()
        let generic = base.lowercased()
        let name = Self.pick(listing.stems[specific], scale: scale) ?? Self.pick(listing.stems[generic], scale: scale)
        return name.map { XDGDirectories.join(dir, $0) }
    }

    /// The image among `stems` (in order) found by `stat` of each candidate name, spelled as
    /// given and lower-cased: the exact scale, the unscaled file, then the nearest other scale.
    static func probe(_ dir: String, stems: [String], scale: Int) -> String? {
        var others = (1...DisplayScale.maximum).filter { $0 != scale }
        others.sort { (abs($0 - scale), -$0) < (abs($1 - scale), -$1) }
        for stem in stems {
            let spellings = stem == stem.lowercased() ? [stem] : [stem, stem.lowercased()]
            for suffix in ["@\(scale)x", ""] + others.map({ "@\($0)x" }) {
                for spelling in spellings {
                    let path = XDGDirectories.join(dir, spelling + suffix + ".png")
                    if FileSystem.info(path).kind == .file { return path }
                }
            }
        }
        return nil
    }

    /// The launch-image directory of `entry` (nil when `X-LaunchImageDir` is unusable).
    public static func directory(for entry: DesktopEntry) -> String? {
        if let d = entry.launchImageDirectory, !d.isEmpty {
            if d.utf8.contains(0) { return nil }
            let path = d.hasPrefix("/") ? d : XDGDirectories.join(FileSystem.dirname(entry.path), d)
            return XDGDirectories.normalize(path)
        }
        let id = entry.id.appID
        return XDGDirectories.join(XDGDirectories.join(entry.dataDirectory, "launch-images"), id)
    }

    /// `X-LaunchImage`, when it is a plain file name; else `Default`.
    public static func baseName(for entry: DesktopEntry) -> String {
        guard let b = entry.launchImage, !b.isEmpty, !b.contains("/"), b != ".", b != "..", !b.utf8.contains(0) else { return "Default" }
        return b
    }

    /// Among one stem's files: the exact scale, then the unscaled file, then the nearest other
    /// scale.
    static func pick(_ files: [Int: String]?, scale: Int) -> String? {
        guard let files else { return nil }
        return files[scale] ?? files[0] ?? nearest(files, scale: scale)
    }

    static func nearest(_ files: [Int: String], scale: Int) -> String? {
        var best: (distance: Int, scale: Int)? = nil
        for s in files.keys where s != 0 && s != scale {
            let d = abs(s - scale)
            if best == nil || d < best!.distance || (d == best!.distance && s > best!.scale) { best = (d, s) }
        }
        return best.map { files[$0.scale]! }
    }

    /// The listing of `dir`, re-read when the directory changed since it was read.
    func current(_ dir: String) -> Listing {
        var st = stat()
        let found = stat(dir, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
        let modified = found ? (Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)) : (0, 0)
        if let cached = listings.withLock({ $0[dir] }), cached.exists == found,
           cached.huge || (!cached.racy && cached.modified == modified) {
            return cached
        }
        var listing = Listing()
        listing.exists = found
        listing.modified = modified
        if found {
            (listing.stems, listing.huge) = Self.read(dir)
            directoryReads.add(1, ordering: .relaxed)
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        listing.racy = found && Int(now.tv_sec) - modified.0 < 2
        listings.withLock { cache in
            if cache.count > 4096 { cache.removeAll() }  // a bound on memory, not a policy
            cache[dir] = listing
        }
        return listing
    }

    /// Reads the PNG files of `dir` into stems and scales, reading at most ``maximumFiles``
    /// entries; `huge` when there were more.
    static func read(_ dir: String) -> (stems: [String: [Int: String]], huge: Bool) {
        guard let handle = opendir(dir) else { return ([:], false) }
        defer { closedir(handle) }
        var entries: [(name: String, type: UInt8)] = []
        while let ent = readdir(handle) {
            if entries.count >= maximumFiles { return ([:], true) }
            let name: String? = withUnsafePointer(to: &ent.pointee.d_name) { ptr in
                ptr.withMemoryRebound(to: CChar.self, capacity: 256) { String(validatingCString: $0) }
            }
            guard let name, name != ".", name != ".." else { continue }
            entries.append((name, ent.pointee.d_type))
        }
        var stems: [String: [Int: String]] = [:]
        for e in entries {
            let lower = e.name.lowercased()
            guard lower.hasSuffix(".png"), lower.count > 4 else { continue }
            if e.type != UInt8(DT_REG) {
                guard e.type == UInt8(DT_LNK) || e.type == UInt8(DT_UNKNOWN),
                      FileSystem.info(XDGDirectories.join(dir, e.name)).kind == .file else { continue }
            }
            var stem = Substring(lower.dropLast(4))
            var scale = 0
            if let at = stem.lastIndex(of: "@"), stem.hasSuffix("x") {
                let digits = stem[stem.index(after: at)..<stem.index(before: stem.endIndex)]
                if let n = Int(digits), n >= 1, n <= DisplayScale.maximum, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    scale = n
                    stem = stem[..<at]
                }
            }
            stems[String(stem), default: [:]][scale] = e.name
        }
        return (stems, false)
    }
}
