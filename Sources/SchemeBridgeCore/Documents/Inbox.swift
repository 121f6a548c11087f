import CLinux
import Glibc
import LinuxSystem

/// The apps' Inboxes (seed 000): `$XDG_DATA_HOME/schemebridge/inbox/<desktop id without
/// .desktop>/`, where a document opened with an app is placed as a read-only copy (mode 0444;
/// a reflink where the file system can, else a copy; never a hard link, so the original and the
/// copy never change together). The app may read and delete what it gets.
///
/// Housekeeping: files older than the retention period are removed (``sweep(retention:now:)``,
/// run at start and before each placement); an Inbox never holds more than its byte cap
/// (`QuotaExceeded`). Blocking (reads a caller's descriptor): call it from a thread of its own.
public struct Inbox: Sendable {
    /// The directory holding one Inbox per app.
    public let root: String

    public init(root: String) { self.root = root }

    /// `$XDG_DATA_HOME/schemebridge/inbox` of `environment`.
    public init(environment: [String: String]) {
        let data = XDGDirectories(environment: environment).dataHome
        self.init(root: XDGDirectories.join(XDGDirectories.join(data, "schemebridge"), "inbox"))
    }

    /// The Inbox of desktop id `desktopID`.
    public func directory(for desktopID: String) -> String {
        XDGDirectories.join(root, desktopID.hasSuffix(".desktop") ? String(desktopID.dropLast(8)) : desktopID)
    }

    /// Places a read-only copy of `fd` (a regular file the caller opened) in `desktopID`'s Inbox
    /// under `name` (made unique: `report (2).pdf`); returns its path. `maximumBytes` caps the
    /// Inbox as a whole.
    public func place(_ fd: Int32, name: String, desktopID: String, maximumBytes: Int64) throws(OpenFailure) -> String {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw OpenFailure(.invalidArgument, "only regular files can be opened as documents")
        }
        let dir = directory(for: desktopID)
        do throws(FileSystemError) {
            try FileSystem.makeDirectories(dir, mode: 0o700)
        } catch {
            throw OpenFailure(.failed, "cannot create the Inbox \(dir): \(error.message)")
        }
        let used = usage(dir)
        guard used + Int64(st.st_size) <= maximumBytes else {
            throw OpenFailure(.quotaExceeded, "\(desktopID)'s Inbox holds \(used) bytes; the document (\(st.st_size) bytes) would take it past \(maximumBytes) (MaxInboxBytes)")
        }
        let base = Self.safeName(name)
        for attempt in 1...1000 {
            let candidate = XDGDirectories.join(dir, attempt == 1 ? base : Self.numbered(base, attempt))
            let out = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if out < 0 {
                if errno == EEXIST { continue }
                throw Self.failure(errno, "cannot create \(candidate)")
            }
            defer { close(out) }
            if clinux_reflink(out, fd) != 0 {
                var offset: Int64 = 0
                let copied = clinux_copy(fd, &offset, out, Int64(st.st_size) + 1)
                guard copied >= 0 else {
                    let e = errno
                    unlink(candidate)
                    throw Self.failure(e, "cannot copy the document into \(dir)")
                }
            }
            // Not fsynced: the copy hands a document to an app being started now (the original is
            // never touched); after a power loss an Inbox may hold an incomplete copy, which the
            // retention sweep removes. A sync cost ~1.2 ms an open on ext4 (make bench).
            guard fchmod(out, 0o444) == 0 else {
                let e = errno
                unlink(candidate)
                throw Self.failure(e, "cannot finish \(candidate)")
            }
            return candidate
        }
        throw OpenFailure(.failed, "\(dir) already holds 1,000 files named like \(base)")
    }

    /// Removes Inbox files last changed more than `retention` seconds before `now` (seconds
    /// since the epoch), and Inboxes left empty. Returns how many files went.
    @discardableResult
    public func sweep(retention: Int64, now: Int64) -> Int {
        guard let apps = try? FileSystem.list(root) else { return 0 }
        var removed = 0
        for app in apps.entries where app.type == DT_DIR {
            let dir = XDGDirectories.join(root, app.name)
            guard let files = try? FileSystem.list(dir) else { continue }
            var left = 0
            for file in files.entries {
                let path = XDGDirectories.join(dir, file.name)
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }
                if now - Int64(st.st_mtim.tv_sec) > retention, unlink(path) == 0 {
                    removed += 1
                } else {
                    left += 1
                }
            }
            if left == 0 { rmdir(dir) }
        }
        return removed
    }

    /// Bytes held by the Inbox at `dir`.
    func usage(_ dir: String) -> Int64 {
        guard let files = try? FileSystem.list(dir) else { return 0 }
        var total: Int64 = 0
        for file in files.entries {
            var st = stat()
            if lstat(XDGDirectories.join(dir, file.name), &st) == 0 { total += Int64(st.st_size) }
        }
        return total
    }

    /// A file name from what the caller's file was called: its last component, without control
    /// characters, not hidden, at most 200 bytes (the extension kept); "document" when nothing is left.
    static func safeName(_ name: String) -> String {
        var base = String(name.split(separator: "/").last ?? "")
        base = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
        while base.hasPrefix(".") { base.removeFirst() }
        if base.utf8.count > 200 {
            let ext = extensionOf(base)
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

    /// The `file://` URL of an absolute `path`: every byte but unreserved characters and `/`
    /// %-encoded.
    public static func fileURL(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("file://".utf8)
        for b in path.utf8 {
            let plain = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "-._~/".utf8.contains(b)
            if plain { out.append(b) } else { out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]] }
        }
        return String(decoding: out, as: UTF8.self)
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
