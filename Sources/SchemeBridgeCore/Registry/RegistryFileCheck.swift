import Synchronization

/// What runs is what the desktop file on disk says now.
///
/// The registry's records may come from its index in `$XDG_CACHE_HOME/schemebridge/`, a file
/// exactly as writable as `~/.local/share`: any program of the user can rewrite it, checksum
/// included. It may speed up the start, never decide what runs. Before a launch the chosen
/// entry's file — and the files of the entries with its ID that it masks, which decide whether
/// a copy in the user's data dir may keep a reserved scheme — are read and parsed again (one
/// small file each), and the launch goes ahead only when they say what the registry held.
/// Otherwise the registry is brought back to the files (``reloadFromFiles(because:)``) and the
/// choice is made anew (``URLRouter``).
extension Registry {
    /// `entry` as its file says now, and whether it is eligible; nil when the file is gone or no
    /// longer an application, or when `entry` names no file a scan could have read.
    ///
    /// A file read here is read again only once it changed: while its `stat` (device, inode,
    /// size, modification and change times) is what it was when it was read, it says what it
    /// said then (``VerifiedFiles``). Its eligibility (`TryExec`, the program) is judged anew.
    func entryOnDisk(_ entry: DesktopEntry) -> (entry: DesktopEntry, eligible: Bool)? {
        guard let file = file(of: entry) else { return nil }
        let path = XDGDirectories.join(file.directory.path, file.relative)
        let info = FileSystem.info(path)
        if info.kind == .file, let known = verifiedFiles.entry(at: path, signature: info.signature) {
            return (known, known.ineligibility(searchPath: scanner.searchPath) == nil)
        }
        guard let record = scanner.rescanFile(directory: file.directory, relativePath: file.relative).0,
              case .application(let fresh, let eligible) = record.state else { return nil }
        // Not a file changed within the timestamps' granularity of its read ("racy": a change
        // right after the read could leave the same times), nor one that warned.
        if !record.reread { verifiedFiles.remember(path, signature: record.signature, entry: fresh) }
        return (fresh, eligible)
    }

    /// Where `entry`'s file is: its applications directory (and that directory's index) and its
    /// path there; nil for a directory not in use, a path that is not plainly below it, or one
    /// whose desktop ID is not `entry`'s.
    private func file(of entry: DesktopEntry) -> (index: Int, directory: ApplicationsDirectory, relative: String)? {
        let (relative, all) = (entry.fields.pathTail, applicationsDirectories)
        guard DesktopID.make(relativePath: relative) == entry.idText, Registry.isPlainRelativePath(relative),
              let index = all.firstIndex(where: { $0.path == entry.applicationsDirectory })
        else { return nil }
        return (index, all[index], relative)
    }

    /// Whether `entry` (eligible) is exactly what its file says now, and — when it lies in a
    /// directory the user's programs can write, where what it masks decides whether it keeps a
    /// reserved scheme — the entries with its ID that it masks too. Reads and parses those files
    /// (usually one).
    public func matchesFilesOnDisk(_ entry: DesktopEntry) -> Bool {
        guard let chosen = entryOnDisk(entry), chosen.eligible, chosen.entry == entry else { return false }
        return trust.isTrusted(entry.applicationsDirectory)
            || maskedEntries(id: entry.id).allSatisfy { masked in entryOnDisk(masked)?.entry == masked }
    }

    /// Brings the registry back to the files after `entry` (or an entry it masks) disagreed with
    /// its file. When only `entry` did and it lies in a directory the user's programs can write,
    /// that file alone is read again (it changed, or its record was forged — which gains nothing
    /// writing the file would not; a full read each time would let a program that keeps editing
    /// its own entry cost every open a scan). Otherwise every desktop file and list is read again
    /// believing no record (the index's or an earlier read's), with a warning, and the index is
    /// rewritten. The schemes whose answers changed are published.
    public func reloadFromFiles(because entry: DesktopEntry) {
        if !trust.isTrusted(entry.applicationsDirectory), let file = file(of: entry),
           maskedEntries(id: entry.id).allSatisfy({ entryOnDisk($0)?.entry == $0 }) {
            apply([.appFile(dir: file.index, relativePath: file.relative)])
            return
        }
        warn(RegistryWarning(path: entry.path, message: "what the registry held for \(entry.id) is not what its file says "
                                 + "(a forged registry index, or a change not seen yet); every desktop file is read again"))
        writer.withLock { _ in
            materializeLocked()
            state.withLock { m in
                for d in m.appDirs.indices {
                    for key in m.appDirs[d].files.keys { m.appDirs[d].files[key]!.reread = true }
                }
            }
        }
        apply([.everything])
        scheduleIndexWrite()
    }

    /// Whether `path` is relative, ends in `.desktop`, and has no empty, `.` or `..` component.
    /// Components are cut at every `/` byte (no array of them is made: this runs before each
    /// launch), which refuses at least what cutting at `/` characters did.
    static func isPlainRelativePath(_ path: String) -> Bool {
        guard path.hasSuffix(".desktop"), !path.hasPrefix("/") else { return false }
        var length = 0  // of the current component; -1 once it is more than dots
        for b in path.utf8 {
            if b == UInt8(ascii: "/") {
                guard length < 0 || length > 2 else { return false }  // empty, `.` or `..`
                length = 0
            } else if length >= 0 {
                length = b == UInt8(ascii: ".") ? length + 1 : -1
            }
        }
        return length < 0 || length > 2
    }
}

/// Desktop files as they were read before a launch, by path, each with its `stat` signature
/// then: a file whose signature is unchanged says what it said (no program can set a change
/// time; a file rewritten within the timestamps' granularity of its read is never kept). The
/// check before a launch is then one `stat` instead of a read and a parse. At most
/// ``capacity`` files (the handlers launched, usually a few).
final class VerifiedFiles: Sendable {
    private struct Verified {
        let signature: FileSignature
        let entry: DesktopEntry
    }
    private let files = Mutex<[String: Verified]>([:])
    static let capacity = 256

    /// What the file at `path` said when it was read, if its signature is still `signature`.
    func entry(at path: String, signature: FileSignature) -> DesktopEntry? {
        files.withLock { known in
            guard let v = known[path], v.signature == signature else { return nil }
            return v.entry
        }
    }

    /// Notes that the file at `path`, whose signature was `signature` as it was read, says `entry`.
    func remember(_ path: String, signature: FileSignature, entry: DesktopEntry) {
        files.withLock { known in
            if known.count >= Self.capacity, known[path] == nil { known.removeAll() }
            known[path] = Verified(signature: signature, entry: entry)
        }
    }
}
