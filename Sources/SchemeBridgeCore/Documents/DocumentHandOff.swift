import Glibc
import LinuxSystem

/// How a document reaches its handler: a copy in the handler's Inbox or the file itself
/// (`OpenFile`'s `mode`), directly or through the document portal (a sandboxed handler, whose
/// entry is a Flatpak's: ``DesktopEntry/flatpakAppID``).
///
/// - Copy: the Inbox copy (read-only). A sandboxed handler gets it as a document granted `read`.
/// - In place: the file the caller's descriptor is open on — for a caller that is not sandboxed
///   (``handsOverFileItself(callerSandboxed:)``; a sandboxed caller's gets a copy). Write access follows the descriptor:
///   a sandboxed handler is granted `read`, plus `write` only when the descriptor is open for
///   writing — the portal enforces it. An unsandboxed handler gets the file's path: it runs as the
///   user with the user's rights to every file, so nothing we hand it can make the file read-only
///   for it (its own permission bits decide, as with `xdg-open`); the caller that wants the
///   handler unable to change its file uses `copy`.
public struct DocumentHandOff: Sendable, Equatable {
    /// Whether the handler gets the file itself (else an Inbox copy).
    public let inPlace: Bool
    /// The Flatpak app the handler is, when sandboxed (the document goes through the portal).
    public let sandboxAppID: AppID?
    /// Whether the caller's descriptor is open for writing.
    public let callerCanWrite: Bool

    public init(inPlace: Bool, sandboxAppID: AppID?, callerCanWrite: Bool) {
        self.inPlace = inPlace
        self.sandboxAppID = sandboxAppID
        self.callerCanWrite = callerCanWrite
    }

    /// Whether `OpenFile`'s `in-place` hands over the file itself for a caller that is
    /// `callerSandboxed` (else the caller gets what `copy` gives: an Inbox copy, read-only).
    ///
    /// Never for a sandboxed caller. The file itself is known by a name in a folder, and a
    /// sandboxed app owns the folders it can write (`~/.var/app/ID/…`): after the call it can put
    /// a symlink to any of the user's files in the name's place — one it has no descriptor for,
    /// and cannot even see (`~/.config/autostart/login.desktop`). An unsandboxed handler given the
    /// path follows that symlink; so does the document portal (xdg-document-portal 1.16, and its
    /// code as it is today) when a handler granted `write` opens the document with `O_CREAT`, as
    /// saving does (it opens the name without `O_NOFOLLOW` then), and its root view at
    /// `/run/user/UID/doc/ID`, which unsandboxed programs use, grants everything. A copy made from
    /// the descriptor is the file the caller had. An unsandboxed caller gains nothing by such a swap (it can open the user's
    /// files itself), so its file is handed over as asked. Being sandboxed can be forged only to
    /// one's own loss (a copy instead of the file).
    public static func handsOverFileItself(callerSandboxed: Bool) -> Bool { !callerSandboxed }

    /// Whether the handler may write the document it gets: in place, from a writable descriptor.
    public var handlerMayWrite: Bool { inPlace && callerCanWrite }

    /// The document portal permissions to grant the sandboxed handler.
    public var portalPermissions: [String] { handlerMayWrite ? ["read", "write"] : ["read"] }

    /// The path a sandboxed app sees document `id` named `name` at: flatpak binds the portal's
    /// `by-app/APPID` on `/run/user/UID/doc` in the sandbox (outside, the same path in a session
    /// whose `XDG_RUNTIME_DIR` is `/run/user/UID`).
    public static func portalPath(documentID id: String, name: String, uid: uid_t = getuid()) -> String {
        "/run/user/\(uid)/doc/\(id)/\(name)"
    }
}

/// The file a caller's descriptor is open on, for `in-place`: its one path and its access mode.
public struct InPlaceFile: Sendable, Equatable {
    /// The absolute path naming that very file (same device and inode as the descriptor), as the
    /// kernel names it: bytes, which need not be UTF-8.
    public let pathBytes: [UInt8]
    /// Whether the descriptor is open for writing.
    public let writable: Bool

    /// ``pathBytes`` as text, for messages and D-Bus strings (a byte that is not UTF-8 shows as U+FFFD).
    public var path: String { String(decoding: pathBytes, as: UTF8.self) }

    /// Finds the file descriptor `fd` is open on. Blocking (it `stat`s the path): run it on a
    /// descriptor thread.
    /// (``Documents/inspect(_:contentType:)`` has checked that it reads a regular file.)
    /// - Throws: ``OpenFailure`` `invalidArgument` when the descriptor's file has no path that
    ///   names it now (deleted, renamed over, or outside what the service sees): the caller can
    ///   still send a copy.
    public static func locate(_ fd: borrowing FileDescriptor) throws(OpenFailure) -> InPlaceFile {
        let flags = fcntl(fd.rawValue, F_GETFL)
        guard let own = try? fd.status(), own.st_mode & S_IFMT == S_IFREG else {
            throw OpenFailure(.invalidArgument, "in-place opens regular files only")
        }
        // The link's bytes as they are: a file name is any bytes but `/` and NUL, UTF-8 or not.
        let path = fd.kernelPath() ?? []
        var named = stat()
        let found = path.first == UInt8(ascii: "/") && (path + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &named) } == 0
        }
        guard found, named.st_dev == own.st_dev, named.st_ino == own.st_ino else {
            throw OpenFailure(.invalidArgument, "the file has no path that names it now (deleted, moved, or not visible to the service); send it with mode copy")
        }
        return InPlaceFile(pathBytes: path, writable: flags & O_ACCMODE == O_RDWR)
    }
}
