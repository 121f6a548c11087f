import Glibc

/// One directory an applications-directory walk listed, with its signature taken before the
/// listing: while the signature still matches, the directory holds the same names.
struct IndexedDirectory: Sendable, Equatable {
    /// Relative to the applications directory ("" for the directory itself).
    var relativePath: String
    /// What was there: a directory, or nothing (a root that does not exist yet).
    var kind: FileSystem.Kind
    var signature: FileSignature
    /// Changed so shortly before it was listed that a later change might not show in its
    /// signature (timestamps are coarse): not trusted at the next start.
    var recent: Bool
}

/// What the index says about one applications directory.
struct IndexedAppDirectory: Sendable {
    /// The directories of the walk, when the walk matched the records exactly; empty (and
    /// `complete` false) when it did not, so the next start walks this directory again.
    var complete: Bool
    var directories: [IndexedDirectory]
    /// Every `.desktop` file, as last read.
    var records: [AppFileRecord]
}

/// The decoded contents of an index file.
struct IndexContents: Sendable {
    var directories: [IndexedAppDirectory]
}

extension FileSignature {
    /// Whether the file changed so shortly before `now` that another change within the file
    /// system's timestamp granularity would leave the same signature (the "racy" case): such a
    /// version is re-read at the next start. Timestamps without nanoseconds are taken to be
    /// whole seconds (2 s margin); others come from the kernel's coarse clock (100 ms margin).
    func isRecent(now: timespec) -> Bool {
        let coarse = ctimeNanoseconds == 0 && mtimeNanoseconds == 0
        let marginNs: Int = coarse ? 2_000_000_000 : 100_000_000
        let newest = max(ctimeSeconds * 1_000_000_000 + ctimeNanoseconds, mtimeSeconds * 1_000_000_000 + mtimeNanoseconds)
        let nowNs = now.tv_sec * 1_000_000_000 + now.tv_nsec
        return nowNs - newest < marginNs
    }

    static func now() -> timespec {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ts
    }
}

/// Encodes and decodes the registry index (format version ``version``).
///
/// Layout: a 48-byte header (magic, byte-order mark, version, total length, checksum of the
/// body), then the body: the configuration key (locale and directories: an index made for
/// another configuration is not used), then per applications directory its walk's directories
/// and its files. A file is its relative path (its desktop ID follows from it), signature,
/// flags, state and, for an application, the fields of ``DesktopEntry``; its eligibility is
/// not stored but decided again at load (`TryExec` depends on `PATH`).
enum RegistryIndexCodec {
    static let magic: [UInt8] = Array("SBRINDEX".utf8)
    static let byteOrderMark: UInt32 = 0x0A0B_0C0D
    /// Bumped whenever the layout or the meaning of a field changes (6: `DBusActivatable` only
    /// for an id that makes a bus name; 7: the entries that declare app links and the programs
    /// by name, so that a start from the index answers the first calls without the model; 8: the
    /// records each effective entry masks, so that a user's entry is checked and launched
    /// without the model).
    static let version: UInt32 = 8
    static let headerSize = 48

    /// The string that must match for an index to be used.
    static func configurationKey(directories: [ApplicationsDirectory], locale: LocaleMatcher) -> String {
        var key = "v\(version);depth=\(AppScanner.maximumDepth);locale=" + locale.candidates.joined(separator: ",")
        for d in directories { key += "\n" + d.path + "\t" + d.dataDirectory }
        return key
    }

    // MARK: encoding

    static func encode(configurationKey: String, directories: [IndexedAppDirectory], resolved: ResolvedSnapshot? = nil) -> [UInt8] {
        let total = directories.reduce(0) { $0 + $1.records.count }
        var w = IndexByteWriter(capacity: 256 + total * 256)
        for b in magic { w.u8(b) }
        w.u32(byteOrderMark)
        w.u32(version)
        w.u64(0)  // length, patched below
        w.u64(0)  // checksum, patched below
        w.u64(0)
        w.u64(0)
        w.string(configurationKey)
        w.u32(UInt32(directories.count))
        var recordOffsets: [[String: (record: Int, exec: Int?)]] = []
        for dir in directories {
            w.u8(dir.complete ? 1 : 0)
            w.u32(UInt32(dir.directories.count))
            for d in dir.directories {
                w.string(d.relativePath)
                w.u8(d.kind == .directory ? 1 : 0)
                w.u8(d.recent ? 1 : 0)
                w.signature(d.signature)
            }
            w.u32(UInt32(dir.records.count))
            // The records' byte length, so a pass that needs only the directories steps over them.
            let block = w.bytes.count
            w.u64(0)
            var offsets: [String: (record: Int, exec: Int?)] = [:]
            for r in dir.records {
                // Each record starts with its length, so a pass that only checks signatures can
                // step over the entry's fields.
                let start = w.bytes.count
                w.u32(0)
                let exec = encode(r, into: &w)
                if resolved != nil { offsets[r.relativePath] = (start, exec) }
                w.patch32(UInt32(w.bytes.count - start), at: start)
            }
            w.patch(UInt64(w.bytes.count - block - 8), at: block)
            recordOffsets.append(offsets)
        }
        if let resolved {
            w.u8(1)
            encodeResolved(resolved, recordOffsets: recordOffsets, into: &w)
        } else {
            w.u8(0)
        }
        let length = UInt64(w.bytes.count)
        w.patch(length, at: 16)
        let sum = w.bytes.withUnsafeBytes { IndexChecksum.of(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        w.patch(sum, at: 24)
        return w.bytes
    }

    private enum StateTag: UInt8 { case application = 0, notApplication = 1, invalid = 2 }

    private struct EntryFlags: OptionSet {
        let rawValue: UInt16
        static let hidden = EntryFlags(rawValue: 1 << 0)
        static let runsSchemeBridgeOpen = EntryFlags(rawValue: 1 << 1)
        static let terminal = EntryFlags(rawValue: 1 << 2)
        static let noDisplay = EntryFlags(rawValue: 1 << 3)
        static let startupNotifySet = EntryFlags(rawValue: 1 << 4)
        static let startupNotify = EntryFlags(rawValue: 1 << 5)
        static let dbusActivatable = EntryFlags(rawValue: 1 << 6)
        static let execInvalid = EntryFlags(rawValue: 1 << 7)
        static let absolutePath = EntryFlags(rawValue: 1 << 8)
    }

    /// Returns the offset of the entry's `execProgram` string, if it has one.
    @discardableResult
    private static func encode(_ r: AppFileRecord, into w: inout IndexByteWriter) -> Int? {
        var execOffset: Int? = nil
        w.string(r.relativePath)
        w.signature(r.signature)
        w.u8(r.reread ? 1 : 0)
        switch r.state {
        case .notApplication: w.u8(StateTag.notApplication.rawValue)
        case .invalid: w.u8(StateTag.invalid.rawValue)
        case .application(let entry, _):
            w.u8(StateTag.application.rawValue)
            let f = entry.fields
            var flags: EntryFlags = []
            if f.hidden { flags.insert(.hidden) }
            if f.runsSchemeBridgeOpen { flags.insert(.runsSchemeBridgeOpen) }
            if f.terminal { flags.insert(.terminal) }
            if f.noDisplay { flags.insert(.noDisplay) }
            if let s = f.startupNotify {
                flags.insert(.startupNotifySet)
                if s { flags.insert(.startupNotify) }
            }
            if f.dbusActivatable { flags.insert(.dbusActivatable) }
            if f.execError != nil { flags.insert(.execInvalid) }
            // The path is normally the directory joined with the relative path; otherwise kept.
            let absolute = f.pathTail != r.relativePath
            if absolute { flags.insert(.absolutePath) }
            w.u32(UInt32(flags.rawValue))
            if absolute { w.string(f.pathTail) }
            w.optionalString(f.name)
            w.optionalString(f.icon)
            w.optionalString(f.exec)
            if f.execProgram != nil { execOffset = w.bytes.count }
            w.optionalString(f.execProgram)
            w.optionalString(f.tryExec)
            w.optionalString(f.workingDirectory)
            w.optionalString(f.startupWMClass)
            w.optionalString(f.launchImage)
            w.optionalString(f.launchImageDirectory)
            w.u32(UInt32(f.schemes.count))
            for s in f.schemes { w.string(s) }
            w.u32(UInt32(f.mimeTypes.count))
            for t in f.mimeTypes { w.string(t) }
            w.u32(UInt32(f.extensionKeys.count))
            for (k, v) in f.extensionKeys.sorted(by: { $0.key < $1.key }) {
                w.string(k)
                w.string(v)
            }
            w.u32(UInt32(f.shareActions.count))
            for a in f.shareActions {
                w.string(a.action)
                w.string(a.name)
                w.optionalString(a.icon)
                w.optionalString(a.exec)
                w.u32(UInt32(a.maxItems ?? 0))
                w.u32(UInt32(a.types.count))
                for t in a.types { w.string(t) }
            }
        }
        return execOffset
    }

    // MARK: decoding

    /// Decodes and checks an index file's bytes. Throws ``IndexRejection`` for anything that is
    /// not exactly what ``encode(configurationKey:directories:)`` writes for `configurationKey`
    /// and `directories` (other version, other byte order, truncated, corrupt, other
    /// configuration, or fields that could not come from a desktop file).
    static func decode(_ raw: UnsafeRawBufferPointer, configurationKey: String,
                       directories appDirs: [ApplicationsDirectory],
                       locale: LocaleMatcher, searchPath: [String]) throws(IndexRejection) -> IndexContents {
        var r = IndexByteReader(raw, offset: try checkHeader(raw, configurationKey: configurationKey))
        let dirCount = try r.count(minimumSize: 9)
        guard dirCount == appDirs.count else { throw IndexRejection("directory count differs") }
        var result: [IndexedAppDirectory] = []
        result.reserveCapacity(dirCount)
        for appDir in appDirs {
            let (complete, dirs) = try decodeDirectories(&r)
            let m = try r.count(minimumSize: 4 + 5 + 56 + 2)
            let blockEnd = try recordsEnd(&r)
            var records: [AppFileRecord] = []
            records.reserveCapacity(m)
            for _ in 0..<m {
                let start = r.offset
                let length = Int(try r.u32())
                guard length >= 4 + 5 + 56 + 2, length - 4 <= r.remaining else { throw IndexRejection("corrupt record length") }
                records.append(try decodeRecord(&r, directory: appDir, searchPath: searchPath))
                guard r.offset == start + length else { throw IndexRejection("corrupt record length") }
            }
            guard r.offset == blockEnd else { throw IndexRejection("corrupt records length") }
            result.append(IndexedAppDirectory(complete: complete, directories: dirs, records: records))
        }
        // The resolved section follows (read by FrozenIndex, the start-up without decoding).
        return IndexContents(directories: result)
    }

    /// Reads the records' byte length (after their count); returns where they end.
    static func recordsEnd(_ r: inout IndexByteReader) throws(IndexRejection) -> Int {
        let length = try r.u64()
        guard length <= UInt64(r.remaining) else { throw IndexRejection("corrupt records length") }
        return r.offset + Int(length)
    }

    /// An applications directory's flag and walked directories.
    static func decodeDirectories(_ r: inout IndexByteReader) throws(IndexRejection) -> (complete: Bool, [IndexedDirectory]) {
        let complete = try r.u8()
        guard complete <= 1 else { throw IndexRejection("corrupt directory flag") }
        let n = try r.count(minimumSize: 5 + 2 + 56)
        var dirs: [IndexedDirectory] = []
        dirs.reserveCapacity(n)
        for _ in 0..<n {
            let rel = try r.string()
            guard rel.isEmpty || isSafeRelativePath(rel) else { throw IndexRejection("an unsafe directory path") }
            let kind = try r.u8()
            let recent = try r.u8()
            guard kind <= 1, recent <= 1 else { throw IndexRejection("corrupt directory flags") }
            dirs.append(IndexedDirectory(relativePath: rel, kind: kind == 1 ? .directory : .missing,
                                         signature: try r.signature(), recent: recent == 1))
        }
        return (complete == 1, dirs)
    }

    /// Checks the header (magic, byte order, version, length, checksum) and the configuration
    /// key; returns the offset of what follows the key.
    static func checkHeader(_ raw: UnsafeRawBufferPointer, configurationKey: String) throws(IndexRejection) -> Int {
        guard raw.count >= headerSize else { throw IndexRejection("truncated (no header)") }
        guard raw.prefix(8).elementsEqual(magic) else { throw IndexRejection("not a registry index") }
        var r = IndexByteReader(raw, offset: 8)
        let mark = try r.u32()
        guard mark == byteOrderMark else {
            throw IndexRejection(mark == byteOrderMark.byteSwapped ? "written with the other byte order" : "corrupt header")
        }
        let v = try r.u32()
        guard v == version else { throw IndexRejection("format version \(v), this service reads \(version)") }
        let length = try r.u64()
        guard length == UInt64(raw.count) else { throw IndexRejection("truncated or extended (\(raw.count) of \(length) bytes)") }
        let sum = try r.u64()
        guard sum == IndexChecksum.of(UnsafeRawBufferPointer(rebasing: raw[headerSize...])) else {
            throw IndexRejection("checksum mismatch (corrupt)")
        }
        r = IndexByteReader(raw, offset: headerSize)
        let key = try r.string()
        guard key == configurationKey else { throw IndexRejection("made for another configuration (directories or locale)") }
        return r.offset
    }

    static func decodeRecord(_ r: inout IndexByteReader, directory: ApplicationsDirectory,
                                     searchPath: [String]) throws(IndexRejection) -> AppFileRecord {
        let rel = try r.string()
        guard isSafeRelativePath(rel), rel.hasSuffix(".desktop"), rel.utf8.count > 8 else {
            throw IndexRejection("an unsafe file path")
        }
        let id = DesktopID.make(relativePath: rel)
        let signature = try r.signature()
        let reread = try r.u8()
        guard reread <= 1 else { throw IndexRejection("corrupt file flag") }
        guard let tag = StateTag(rawValue: try r.u8()) else { throw IndexRejection("corrupt file state") }
        var record = AppFileRecord(relativePath: rel, id: id, signature: signature, state: .invalid)
        record.reread = reread == 1
        switch tag {
        case .notApplication: record.state = .notApplication
        case .invalid: record.state = .invalid
        case .application:
            let raw = try r.u32()
            guard raw <= 0x1FF else { throw IndexRejection("corrupt entry flags") }
            let flags = EntryFlags(rawValue: UInt16(raw))
            let pathTail = flags.contains(.absolutePath) ? try r.string() : rel
            if flags.contains(.absolutePath) && !pathTail.hasPrefix("/") { throw IndexRejection("corrupt entry path") }
            let name = try r.optionalString()
            let icon = try r.optionalString()
            let exec = try r.optionalString()
            let execProgram = try r.optionalString()
            let tryExec = try r.optionalString()
            let workingDirectory = try r.optionalString()
            let startupWMClass = try r.optionalString()
            let launchImage = try r.optionalString()
            let launchImageDirectory = try r.optionalString()
            let schemeCount = try r.count(minimumSize: 5)
            guard schemeCount <= DesktopEntry.maximumSchemes else { throw IndexRejection("more schemes than an entry may declare") }
            var schemes: [String] = []
            schemes.reserveCapacity(schemeCount)
            for _ in 0..<schemeCount {
                let s = try r.string()
                // A scheme as the parser stores it: valid and lower-cased.
                guard let parsed = try? Scheme(s), parsed.name == s else { throw IndexRejection("an invalid scheme") }
                schemes.append(s)
            }
            let typeCount = try r.count(minimumSize: 7)
            guard typeCount <= DesktopEntry.maximumContentTypes else { throw IndexRejection("too many content types") }
            var mimeTypes: [String] = []
            mimeTypes.reserveCapacity(typeCount)
            for _ in 0..<typeCount {
                let t = try r.string()
                // A content type as the parser stores it: valid and lower-cased.
                guard (try? PasteboardType.validated(t)) == t else { throw IndexRejection("an invalid content type") }
                mimeTypes.append(t)
            }
            let extCount = try r.count(minimumSize: 10)
            var ext: [String: String] = [:]
            for _ in 0..<extCount {
                let k = try r.string()
                guard k.hasPrefix("X-") else { throw IndexRejection("an invalid extension key") }
                ext[k] = try r.string()
            }
            let shareActions = try decodeShareActions(&r)
            let hidden = flags.contains(.hidden)
            // The facts derived from Exec must agree with Exec: a valid Exec has a program; an
            // invalid one is parsed again here (rare) to get its error back.
            var execError: ExecError? = nil
            if flags.contains(.execInvalid) {
                if let exec {
                    do throws(ExecError) { _ = try ExecCommand(exec) } catch { execError = error }
                    guard execError != nil else { throw IndexRejection("an Exec marked invalid is valid") }
                } else {
                    execError = .empty
                }
                guard execProgram == nil, !flags.contains(.runsSchemeBridgeOpen) else { throw IndexRejection("corrupt Exec facts") }
            } else if exec != nil {
                guard execProgram != nil else { throw IndexRejection("corrupt Exec facts") }
            } else if !hidden {
                throw IndexRejection("an entry without Exec is not marked invalid")
            }
            let fields = DesktopEntryFields(
                id: id, pathTail: pathTail, applicationsDirectory: directory.path, dataDirectory: directory.dataDirectory,
                hidden: hidden, name: name, icon: icon, exec: exec, execError: execError, execProgram: execProgram,
                runsSchemeBridgeOpen: flags.contains(.runsSchemeBridgeOpen), tryExec: tryExec,
                workingDirectory: workingDirectory, terminal: flags.contains(.terminal),
                noDisplay: flags.contains(.noDisplay),
                startupNotify: flags.contains(.startupNotifySet) ? flags.contains(.startupNotify) : nil,
                startupWMClass: startupWMClass, dbusActivatable: flags.contains(.dbusActivatable), schemes: schemes, mimeTypes: mimeTypes,
                launchImage: launchImage, launchImageDirectory: launchImageDirectory, extensionKeys: ext,
                shareActions: shareActions)
            let entry = DesktopEntry(fields: fields)
            record.state = .application(entry, eligible: entry.ineligibility(searchPath: searchPath) == nil)
        }
        return record
    }

    /// A relative path the scanner could have produced: non-empty components, none empty,
    /// `.`-leading (so no `.` or `..`), and no leading `/`.
    static func isSafeRelativePath(_ rel: String) -> Bool {
        var componentStart = true
        var empty = true
        for b in rel.utf8 {
            if b == UInt8(ascii: "/") {
                if componentStart { return false }
                componentStart = true
                continue
            }
            if componentStart && b == UInt8(ascii: ".") { return false }
            componentStart = false
            empty = false
        }
        return !empty && !componentStart
    }
}

extension DesktopEntryFields {
    /// The fields as stored in the registry index.
    init(id: String, pathTail: String, applicationsDirectory: String, dataDirectory: String, hidden: Bool,
         name: String?, icon: String?, exec: String?, execError: ExecError?, execProgram: String?,
         runsSchemeBridgeOpen: Bool, tryExec: String?, workingDirectory: String?, terminal: Bool, noDisplay: Bool,
         startupNotify: Bool?, startupWMClass: String?, dbusActivatable: Bool, schemes: [String], mimeTypes: [String],
         launchImage: String?, launchImageDirectory: String?, extensionKeys: [String: String], shareActions: [ShareAction]) {
        self.id = id
        self.pathTail = pathTail
        self.applicationsDirectory = applicationsDirectory
        self.dataDirectory = dataDirectory
        self.hidden = hidden
        self.name = name
        self.icon = icon
        self.exec = exec
        self.execError = execError
        self.execProgram = execProgram
        self.runsSchemeBridgeOpen = runsSchemeBridgeOpen
        self.tryExec = tryExec
        self.workingDirectory = workingDirectory
        self.terminal = terminal
        self.noDisplay = noDisplay
        self.startupNotify = startupNotify
        self.startupWMClass = startupWMClass
        self.dbusActivatable = dbusActivatable
        self.schemes = schemes
        self.mimeTypes = mimeTypes
        self.launchImage = launchImage
        self.launchImageDirectory = launchImageDirectory
        self.extensionKeys = extensionKeys
        self.shareActions = shareActions
    }
}
