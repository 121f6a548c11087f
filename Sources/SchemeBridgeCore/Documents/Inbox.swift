import CLinux
import Glibc
import LinuxSystem

/// The apps' Inboxes (seed 000): `$XDG_DATA_HOME/schemebridge/inbox/<desktop id without
/// .desktop>/`, where a document opened with an app is placed as a read-only copy (mode 0444;
/// a reflink where the file system can, else a copy; never a hard link, so the original and the
/// copy never change together). The app may read and delete what it gets.
///
/// Housekeeping: files older than the retention period are removed (``sweep(retention:now:)``,
/// run at start and before each placement); the caps of ``InboxLimits`` hold even for
/// concurrent placements (`QuotaExceeded`). Blocking (reads a caller's descriptor): call it from a thread of its own.
public struct Inbox: Sendable {
    /// The directory holding one Inbox per app.
    public let root: String
    /// Who sent the copies placed since the start, and the copies being written (shared by the
    /// copies of this value).
    let ledger = InboxLedger()

    public init(root: String) { self.root = root }

    /// `$XDG_DATA_HOME/schemebridge/inbox` of `environment`.
    public init(environment: [String: String]) {
        let data = XDGDirectories(environment: environment).dataHome
        self.init(root: XDGDirectories.join(XDGDirectories.join(data, "schemebridge"), "inbox"))
    }

    /// The Inbox of desktop id `desktopID`.
    public func directory(for desktopID: DesktopID) -> String {
        XDGDirectories.join(root, desktopID.appID)
    }

    /// Places a read-only copy of `fd` (a regular file the caller opened) in `desktopID`'s Inbox
    /// under `name` (made unique: `report (2).pdf`); returns its path. The copy is charged to the
    /// Inbox, to `caller` (the sending app) and to the Inboxes as a whole, and reserved against
    /// ``InboxLimits`` before its first byte is written; it holds at most the size the file had
    /// then (a file growing meanwhile is cut there), and holes stay holes.
    public func place(_ descriptor: borrowing FileDescriptor, name: String, desktopID: DesktopID, caller: InboxSender, limits: InboxLimits) throws(OpenFailure) -> String {
        String(decoding: try place(descriptor, nameBytes: Array(name.utf8), desktopID: desktopID, caller: caller, limits: limits), as: UTF8.self)
    }

    /// ``place(_:name:desktopID:caller:limits:)`` with the name as the kernel gave it, bytes that
    /// need not be UTF-8 (`photo-\xE9t\xE9.png`): the copy keeps them, and its path is returned as bytes.
    public func place(_ descriptor: borrowing FileDescriptor, nameBytes name: [UInt8], desktopID: DesktopID, caller: InboxSender,
                      limits: InboxLimits) throws(OpenFailure) -> [UInt8] {
        guard let st = try? descriptor.status(), st.st_mode & S_IFMT == S_IFREG else {
            throw OpenFailure(.invalidArgument, "only regular files can be opened as documents")
        }
        let size = Int64(st.st_size)
        guard size <= limits.inboxBytes else {
            throw OpenFailure(.quotaExceeded, "the document (\(size) bytes) is larger than an Inbox may hold (MaxInboxBytes=\(limits.inboxBytes))")
        }
        let dir = directory(for: desktopID)
        do throws(FileSystemError) {
            try FileSystem.makeDirectories(dir, mode: 0o700)
        } catch {
            throw OpenFailure(.failed, "cannot create the Inbox \(dir): \(error.message)")
        }
        let base: [UInt8] = Self.safeName(name)
        let request = InboxLedger.Reservation(directory: dir, caller: caller, bytes: size, disk: min(size, Int64(st.st_blocks) * 512))
        let (token, rawOut, path) = try ledger.reserve(request, root: root, limits: limits, now: Int64(time(nil))) { () throws(OpenFailure) -> (Int32, [UInt8]) in
            for attempt in 1...1000 {
                let candidate = FileSystem.join(dir, attempt == 1 ? base : Self.numbered(base, attempt))
                let created = FileSystem.withPath(candidate) { p in
                    Result(catching: { () throws(Errno) -> Int32 in try FileDescriptor.openNoFollow(cString: p, .createNew(permissions: 0o600)).take() })
                }
                switch created {
                case .success(let out): return (out, candidate)
                case .failure(let e) where e.code == EEXIST: continue
                case .failure(let e): throw Self.failure(e.code, "cannot create \(String(decoding: candidate, as: UTF8.self))")
                }
            }
            throw OpenFailure(.failed, "\(dir) already holds 1,000 files named like \(String(decoding: base, as: UTF8.self))")
        }
        let out = FileDescriptor(owning: rawOut)
        var done = false
        defer {
            if !done {
                _ = FileSystem.withPath(path) { unlink($0) }
                ledger.cancel(token)
            }
        }
        let e = Self.copy(descriptor, to: out, length: size)
        if e != 0 { throw Self.failure(e, "cannot copy the document into \(dir)") }
        // Not fsynced: the copy hands a document to an app being started now (the original is
        // never touched); after a power loss an Inbox may hold an incomplete copy, which the
        // retention sweep removes. A sync cost ~1.2 ms an open on ext4 (make bench).
        guard fchmod(out.rawValue, 0o444) == 0 else { throw Self.failure(errno, "cannot finish \(String(decoding: path, as: UTF8.self))") }
        let written: stat
        do { written = try out.status() } catch { throw Self.failure(error.code, "cannot finish \(String(decoding: path, as: UTF8.self))") }
        ledger.commit(token, path: path, status: written, now: Int64(time(nil)))
        done = true
        return path
    }

    /// `lseek`'s `SEEK_DATA` and `SEEK_HOLE` (Linux; not exported by Glibc's Swift module).
    static let seekData: Int32 = 3, seekHole: Int32 = 4

    /// Copies the first `length` bytes of `fd` into the empty file `out`: a reflink of exactly
    /// that range where the file system can (`FICLONERANGE`: never more than was charged, even
    /// when the source has grown since), else the data extents only (`SEEK_DATA`/`SEEK_HOLE`),
    /// so a sparse file stays sparse; the result is `length` bytes long, or shorter when the
    /// source shrank. Returns 0 or an errno.
    static func copy(_ source: borrowing FileDescriptor, to out: borrowing FileDescriptor, length: Int64) -> Int32 {
        let (fd, outFD) = (source.rawValue, out.rawValue)
        if length > 0, clinux_reflink_range(outFD, fd, length) == 0 { return 0 }
        var position: Int64 = 0
        while position < length {
            var start = Int64(lseek(fd, off_t(position), Self.seekData))
            var end = length
            if start < 0 {
                if errno == ENXIO { break }  // only a hole is left
                start = position  // SEEK_DATA not supported: the rest is data
            } else {
                let hole = Int64(lseek(fd, off_t(start), Self.seekHole))
                if hole >= 0 { end = min(hole, length) }
            }
            guard start < length else { break }
            guard lseek(outFD, off_t(start), SEEK_SET) >= 0 else { return errno }
            let copied: Int64
            do { copied = try source.copy(to: out, offset: start, limit: end - start) } catch { return error.code }
            position = start + copied
            if copied < end - start { break }  // the source shrank
        }
        let final = (try? source.status()).map { min(length, Int64($0.st_size)) } ?? length
        return ftruncate(outFD, off_t(final)) == 0 ? 0 : errno
    }

    /// Removes Inbox files last changed more than `retention` seconds before `now` (seconds
    /// since the epoch), and Inboxes left empty. Returns how many files went.
    @discardableResult
    public func sweep(retention: Int64, now: Int64) -> Int {
        remove(expired: expired(retention: retention, now: now), retention: retention, now: now)
    }

    /// A file name from what the caller's file was called: its last component, without control
    /// characters, not hidden, at most 200 bytes (the extension kept); "document" when nothing is left.
    static func safeName(_ name: String) -> String {
        var base = String(name.split(separator: "/").last ?? "")
        base = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
        while base.hasPrefix(".") { base.removeFirst() }
        if base.utf8.count > 200 {
            // An extension of 200 bytes or more is no extension to keep (it would leave no room).
            let ext = extensionOf(base).utf8.count < 200 ? extensionOf(base) : ""
            var stem = base.dropLast(ext.count)
            while stem.utf8.count + ext.utf8.count > 200 { stem = stem.dropLast() }
            base = String(stem) + ext
        }
        return base.isEmpty ? "document" : base
    }

    /// `report.pdf`, 2 → `report (2).pdf`.
    static func numbered(_ name: String, _ n: Int) -> String {
        let ext = extensionOf(name)
        return String(name.dropLast(ext.count)) + " (\(n))" + ext
    }

    /// ``safeName(_:)`` of a name given as bytes: a UTF-8 name as text; any other keeps its bytes
    /// (control bytes and `/` dropped, not hidden, at most 200 bytes, the extension kept).
    static func safeName(_ name: [UInt8]) -> [UInt8] {
        if let text = String(validating: name, as: UTF8.self) { return Array(safeName(text).utf8) }
        var base = Array(name.split(separator: UInt8(ascii: "/")).last ?? [])
        base.removeAll { $0 < 0x20 || $0 == 0x7F }
        while base.first == UInt8(ascii: ".") { base.removeFirst() }
        if base.count > 200 {
            let ext = extensionOf(base).count < 200 ? extensionOf(base) : []
            base = Array(base.prefix(200 - ext.count)) + ext
        }
        return base.isEmpty ? Array("document".utf8) : base
    }

    /// ``numbered(_:_:)`` of a name given as bytes.
    static func numbered(_ name: [UInt8], _ n: Int) -> [UInt8] {
        let ext = extensionOf(name)
        return Array(name.dropLast(ext.count)) + Array(" (\(n))".utf8) + ext
    }

    /// ``extensionOf(_:)`` of a name given as bytes.
    static func extensionOf(_ name: [UInt8]) -> [UInt8] {
        guard let dot = name.dropFirst().firstIndex(of: UInt8(ascii: ".")) else { return [] }
        let ext = name[dot...]
        return ext.count <= 16 ? Array(ext) : Array(name[(name.lastIndex(of: UInt8(ascii: ".")) ?? name.endIndex)...])
    }

    /// `.pdf` of `report.pdf`, `.tar.gz` of `a.tar.gz`; "" when there is none.
    static func extensionOf(_ name: String) -> String {
        guard let dot = name.dropFirst().firstIndex(of: ".") else { return "" }
        let ext = name[dot...]
        return ext.utf8.count <= 16 ? String(ext) : String(name[(name.lastIndex(of: ".") ?? name.endIndex)...])
    }

    static func failure(_ e: Int32, _ what: String) -> OpenFailure {
        let reason = String(cString: strerror(e))
        return (e == ENOSPC || e == EDQUOT) ? OpenFailure(.quotaExceeded, "\(what): the disk is full (\(reason))") : OpenFailure(.failed, "\(what): \(reason)")
    }
}
