import Glibc

/// Where a shared file item is sent to a nearby device from: the caller's own file, by path (no
/// copy), or a copy in the outbox.
///
/// The engine runs as the user and reads what it is given when the transfer starts. A caller
/// that is not sandboxed runs as the user too and could read its file itself, so the engine may
/// read the file where it is — once the path the kernel names for the caller's descriptor is
/// shown to be that very file now (same device and inode, a regular file the user can read),
/// outside `/proc` and `/sys` and outside the outbox and the Inboxes, and the item is named as
/// that file is (or not named). Everything else is copied into the outbox as before: a
/// sandboxed (Flatpak) caller's file, whose path it may not be allowed to read — sending it
/// would read a path for an app that cannot; a deleted or unlinked file, a memfd, a file the
/// item names otherwise (the device must see the item's name), a file the path no longer names,
/// and a caller that could not be identified.
public enum DeviceFileSource: Sendable, Equatable {
    /// The caller's file, sent by this absolute path: the engine reads it when the transfer
    /// starts, so what the file holds then is sent.
    case direct(path: String)
    /// A copy in the outbox (what the descriptor reads now), sent from there.
    case outboxCopy

    /// The source of a file item, from what the service found (``SharedFileFacts``).
    public static func of(_ facts: SharedFileFacts) -> DeviceFileSource {
        guard facts.callerSandboxed == false, facts.readable,
              let descriptor = facts.descriptor, descriptor.isRegular,
              let path = facts.kernelPath, let atPath = facts.atPath, atPath == descriptor,
              isPlainAbsolute(path), !facts.excludedDirectories.contains(where: { isWithin(path, $0) }),
              !isWithin(path, "/proc"), !isWithin(path, "/sys")
        else { return .outboxCopy }
        guard facts.name.isEmpty || facts.name == lastComponent(path) else { return .outboxCopy }
        return .direct(path: path)
    }

    /// The last of `path`'s components split at its `/` characters (``isPlainAbsolute(_:)``
    /// holds). By its bytes when the last `/` byte has ASCII on both sides (a `/` character of
    /// its own, then: nothing joins it), else by characters.
    static func lastComponent(_ path: String) -> Substring {
        let bytes = path.utf8
        if let slash = bytes.lastIndex(of: UInt8(ascii: "/")), case let next = bytes.index(after: slash), next < bytes.endIndex, bytes[next] < 0x80,
           slash == bytes.startIndex || bytes[bytes.index(before: slash)] < 0x80 {
            return Substring(bytes[next...])
        }
        return path.split(separator: "/").last ?? ""
    }

    /// An absolute path without NUL, `.` or `..` components and empty components (as the kernel
    /// names a file), its components split by bytes as the kernel splits them.
    static func isPlainAbsolute(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            guard bytes.count > 1, bytes[0] == UInt8(ascii: "/") else { return false }
            // Each component (after a `/`, up to the next or the end) by its bytes, as the kernel splits it.
            var start = 1
            for i in 1...bytes.count {
                guard i == bytes.count || bytes[i] == UInt8(ascii: "/") else {
                    if bytes[i] == 0 { return false }
                    continue
                }
                let component = bytes[start..<i], dot = UInt8(ascii: ".")
                if component.isEmpty || component.elementsEqual([dot]) || component.elementsEqual([dot, dot]) { return false }
                start = i + 1
            }
            return true
        }
    }

    /// Whether `path` is `directory` or lies under it (by whole components).
    /// Compared by bytes, as the kernel names paths (by characters, a `/` followed by a combining
    /// mark would not count as one).
    /// (In the strings' own bytes, one comparison: as `Substring.UTF8View`s each call cost ~1,600
    /// instructions, four a share before the engine's call; session 21.)
    static func isWithin(_ path: String, _ directory: String) -> Bool {
        let slash = UInt8(ascii: "/")
        var (path, directory) = (path, directory)
        return directory.withUTF8 { dir in
            var n = dir.count
            while n > 1 && dir[n - 1] == slash { n -= 1 }
            guard n > 0 else { return false }
            if n == 1 && dir[0] == slash { return true }
            return path.withUTF8 { bytes in
                bytes.count >= n && memcmp(bytes.baseAddress!, dir.baseAddress!, n) == 0 && (bytes.count == n || bytes[n] == slash)
            }
        }
    }
}

/// What the service found about a shared file item before sending it to a device
/// (``DeviceFileSource/of(_:)`` decides from it).
public struct SharedFileFacts: Sendable, Equatable {
    /// A file's identity and kind, as `stat` gives them.
    public struct Identity: Sendable, Equatable {
        public var device: UInt64
        public var inode: UInt64
        public var isRegular: Bool

        public init(device: UInt64, inode: UInt64, isRegular: Bool) {
            self.device = device
            self.inode = inode
            self.isRegular = isRegular
        }
    }

    /// Whether the caller runs sandboxed; nil when it was not identified.
    public var callerSandboxed: Bool?
    /// The item's name ("" for none).
    public var name: String
    /// The descriptor's identity (`fstat`); nil when it could not be examined.
    public var descriptor: Identity?
    /// The path the kernel names for the descriptor (`/proc/self/fd/N`); nil when there is none
    /// or it is not valid UTF-8.
    public var kernelPath: String?
    /// What that path names now (`stat`); nil when nothing or it could not be examined.
    public var atPath: Identity?
    /// Whether the service (the user the engine runs as) may read that path.
    public var readable: Bool
    /// Directories whose files are always copied: the outbox and the Inboxes (as given and as
    /// resolved).
    public var excludedDirectories: [String]

    public init(callerSandboxed: Bool?, name: String, descriptor: Identity?, kernelPath: String?, atPath: Identity?, readable: Bool,
                excludedDirectories: [String]) {
        self.callerSandboxed = callerSandboxed
        self.name = name
        self.descriptor = descriptor
        self.kernelPath = kernelPath
        self.atPath = atPath
        self.readable = readable
        self.excludedDirectories = excludedDirectories
    }
}
