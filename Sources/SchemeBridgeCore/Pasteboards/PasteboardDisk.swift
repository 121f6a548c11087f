import Glibc
import LinuxSystem

/// Persistent pasteboards on disk: `$XDG_STATE_HOME/schemebridge/pasteboards/<id>/` (0700), a
/// `meta` file and one data file per typed value. Every write is a new file, `fsync`ed and
/// renamed into place, then the directory `fsync`ed: a crash (SIGKILL, power loss) leaves the
/// previous version or the new one, never a mix; a full disk leaves the previous version and
/// the error says so. Data files are never changed after they are written.
///
/// `meta` is text, one record a line, fields separated by tabs, strings %-escaped:
/// ```
/// schemebridge-pasteboard 1
/// name	<name>
/// owner	<app id>
/// expires	<seconds since the epoch>
/// changes	<change count>
/// grant	<pattern>            (one line per grant)
/// item	<index>	<type>	<data file>	<size>
/// ```
/// Blocking: call it from a thread of its own.
public struct PasteboardDisk: Sendable {
    /// The directory holding one directory per pasteboard.
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `$XDG_STATE_HOME/schemebridge/pasteboards` (or `~/.local/state/…`) of `environment`.
    public init(environment: [String: String]) {
        let state: String
        if let s = environment["XDG_STATE_HOME"], s.hasPrefix("/") {
            state = s
        } else {
            state = XDGDirectories.join(XDGDirectories(environment: environment).home, ".local/state")
        }
        self.init(directory: XDGDirectories.join(XDGDirectories.join(state, "schemebridge"), "pasteboards"))
    }

    static let header = "schemebridge-pasteboard 1"

    /// What one stored pasteboard holds (the data stays on disk until read).
    public struct Record: Sendable {
        public var id: String
        public var name: String
        /// Stored as its text; a `meta` whose owner names no caller identity is damaged.
        public var owner: CallerID
        public var expires: Int64
        public var changeCount: UInt32
        public var grants: [String]
        public var items: [[(type: String, file: String, size: Int64)]]
    }

    /// Writes `board` (persistent, with an owner app): its data files first (those not on disk
    /// yet), then its `meta`; then removes the data files it no longer uses. Returns the board's
    /// items as stored (on disk or in memory, as they were). On failure nothing changed.
    public func save(_ board: Pasteboard) throws(PasteboardError) {
        let dir = XDGDirectories.join(directory, board.id)
        do throws(FileSystemError) {
            try FileSystem.makeDirectories(dir, mode: 0o700)
        } catch {
            throw PasteboardError.failure(errno: error.code == 0 ? EIO : error.code, "cannot create \(dir)")
        }
        var written: [String] = []
        var lines = [Self.header, "name\t\(Self.escape(board.name))", "owner\t\(Self.escape(board.ownerApp?.text ?? ""))",
                     "expires\t\(board.expires)", "changes\t\(board.changeCount)"]
        lines += board.grants.map { "grant\t\(Self.escape($0.text))" }
        do throws(PasteboardError) {
            for (i, item) in board.items.enumerated() {
                for (j, value) in item.enumerated() {
                    let file: String
                    switch value.data {
                    case .disk(let path, _):
                        file = FileSystem.basename(path)
                    case .memory(let data):
                        file = "c\(board.changeCount)-\(i)-\(j)"
                        if try write(data, to: XDGDirectories.join(dir, file)) { written.append(file) }
                    }
                    lines.append("item\t\(i)\t\(value.type)\t\(file)\t\(value.data.size)")
                }
            }
            do throws(FileSystemError) {
                try FileSystem.writeAtomically(Array((lines.joined(separator: "\n") + "\n").utf8), to: XDGDirectories.join(dir, "meta"), defaultMode: 0o600)
            } catch {
                throw PasteboardError.failure(errno: error.code == 0 ? EIO : error.code, "cannot write \(dir)/meta")
            }
        } catch {
            for file in written { unlink(XDGDirectories.join(dir, file)) }
            throw error
        }
        // Data files of earlier versions are not needed any more (readers keep their descriptors).
        let used = Set(lines.compactMap { line -> String? in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            return f.count == 5 && f[0] == "item" ? String(f[3]) : nil
        })
        if let listing = try? FileSystem.list(dir) {
            for entry in listing.entries where entry.name != "meta" && !used.contains(entry.name) {
                unlink(XDGDirectories.join(dir, entry.name))
            }
        }
    }

    /// Removes pasteboard `id`'s directory and everything in it.
    public func remove(_ id: String) {
        let dir = XDGDirectories.join(directory, id)
        if let listing = try? FileSystem.list(dir) {
            for entry in listing.entries { unlink(XDGDirectories.join(dir, entry.name)) }
        }
        rmdir(dir)
    }

    /// Every stored pasteboard that is whole; directories that are not (a missing or garbled
    /// `meta`, a missing or truncated data file) are removed and reported through `warn`.
    public func load(warn: (String) -> Void) -> [Record] {
        guard let listing = try? FileSystem.list(directory) else { return [] }
        var records: [Record] = []
        for entry in listing.entries {
            guard Self.isID(entry.name) else { continue }
            let dir = XDGDirectories.join(directory, entry.name)
            guard let record = read(dir, id: entry.name) else {
                warn("pasteboard storage \(dir) is incomplete or damaged; removed")
                remove(entry.name)
                continue
            }
            records.append(record)
        }
        return records
    }

    // MARK: internals

    private func read(_ dir: String, id: String) -> Record? {
        guard let bytes = try? FileSystem.readFile(XDGDirectories.join(dir, "meta")) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.first == Substring(Self.header) else { return nil }
        var (name, owner, expires, changeCount) = ("", CallerID?.none, Int64(0), UInt32(0))
        var (grants, items): ([String], [[(type: String, file: String, size: Int64)]]) = ([], [])
        for line in lines.dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            switch (f.first, f.count) {
            case ("name", 2): name = Self.unescape(f[1])
            case ("owner", 2): owner = CallerID(Self.unescape(f[1]))
            case ("expires", 2): guard let v = Int64(f[1]) else { return nil }; expires = v
            case ("changes", 2): guard let v = UInt32(f[1]) else { return nil }; changeCount = v
            case ("grant", 2): grants.append(Self.unescape(f[1]))
            case ("item", 5):
                guard let index = Int(f[1]), index >= 0, index <= items.count, let size = Int64(f[4]), size >= 0,
                      !f[3].contains("/"), !f[3].hasPrefix(".") else { return nil }
                let path = XDGDirectories.join(dir, f[3])
                var st = stat()
                guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int64(st.st_size) == size else { return nil }
                if index == items.count { items.append([]) }
                items[index].append((f[2], path, size))
            default: return nil
            }
        }
        guard !name.isEmpty, let owner else { return nil }
        return Record(id: id, name: name, owner: owner, expires: expires, changeCount: changeCount, grants: grants, items: items)
    }

    /// Writes `data` to `path` through a temporary file (so `path` is always whole), unless
    /// `path` is there already: data files are named by change count, item and type, and never
    /// change, so one that exists with the right size was written by an earlier save.
    /// Returns whether it wrote.
    private func write(_ data: SealedData, to path: String) throws(PasteboardError) -> Bool {
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int64(st.st_size) == data.size { return false }
        let temp = XDGDirectories.join(FileSystem.dirname(path), "." + FileSystem.basename(path) + ".tmp")
        let fd: FileDescriptor
        do { fd = try FileDescriptor.openNoFollow(temp, .createOrTruncate(permissions: 0o600)) } catch {
            throw PasteboardError.failure(errno: error.code, "cannot create \(temp)")
        }
        do throws(PasteboardError) {
            try data.copy(to: fd)
            guard fsync(fd.rawValue) == 0 else { throw PasteboardError.failure(errno: errno, "cannot write \(path)") }
            guard rename(temp, path) == 0 else { throw PasteboardError.failure(errno: errno, "cannot write \(path)") }
            return true
        } catch {
            unlink(temp)
            throw error
        }
    }

    /// Whether `name` is a pasteboard id (32 lower-case hex digits).
    public static func isID(_ name: String) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "\t": out += "%09"
            case "\n": out += "%0A"
            case "\r": out += "%0D"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func unescape(_ s: String) -> String {
        s.replacing("%09", with: "\t").replacing("%0A", with: "\n").replacing("%0D", with: "\r").replacing("%25", with: "%")
    }
}
