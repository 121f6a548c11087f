import CLinux
import Glibc
import LinuxSystem

/// A handler's process, held by a pidfd: the pid says where to look, the pidfd says whether the
/// process found there can still be the handler. A pid is reused once its process has ended and
/// been reaped; a pidfd keeps referring to the process it was opened for, and polls readable
/// once that process has exited. So a match on the pid counts only while the pidfd says the
/// handler still runs (``ProcessLineage/isSelfOrDescendant(_:of:procRoot:)``): a process that
/// got the pid after the handler ended is never taken for it.
///
/// Open it for a spawned child in ``ProcessLauncher/spawn``'s `onStart`, before the child can
/// be reaped: the pidfd is then surely the child's. The descriptor is closed when the value goes.
public final class HandlerProcess: Sendable, Equatable {
    /// The process id.
    public let pid: Int32
    /// The pidfd, -1 when none could be opened: then only the pid is compared (a kernel before
    /// Linux 5.3, no descriptor left), unless the process was already gone.
    private let pidfd: Int32
    /// Owns ``pidfd`` (closed when the value goes).
    private let held: FileDescriptor?
    /// The process had ended before its pidfd could be opened (ESRCH): it never counts.
    private let endedBeforeHeld: Bool
    /// The Flatpak app the process runs (its entry's `X-Flatpak=`), nil for an unsandboxed one.
    /// A sandboxed app calls through its xdg-dbus-proxy, which flatpak starts outside the app's
    /// process tree: a sandboxed caller of this app id counts as the process while it runs.
    public let sandboxAppID: AppID?

    /// Holds `pid` by a pidfd opened now; `sandboxAppID`: the Flatpak app it runs, if any.
    public init(pid: Int32, sandboxAppID: AppID? = nil) {
        self.pid = pid
        self.sandboxAppID = sandboxAppID
        let fd = clinux_pidfd_open(pid)  // close-on-exec, as every pidfd
        endedBeforeHeld = fd < 0 && errno == ESRCH
        self.pidfd = fd
        var owner: FileDescriptor? = nil
        if fd >= 0 { owner = FileDescriptor(owning: fd) }
        held = owner
    }

    /// Whether a pidfd holds the process (false: the kernel had none, or the process was gone
    /// when it was opened).
    public var isHeld: Bool { pidfd >= 0 }

    /// Whether the process has not exited: its pid still names it. Without a pidfd the pid is
    /// all there is, and it is believed — unless the process was gone when it was to be held.
    public var isRunning: Bool {
        guard pidfd >= 0 else { return !endedBeforeHeld }
        var p = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        while true {
            let n = poll(&p, 1, 0)
            if n < 0 && errno == EINTR { continue }
            // Readable (or an error on the descriptor): the process has exited.
            return n == 0
        }
    }

    /// The same held process (not merely the same pid).
    public static func == (a: HandlerProcess, b: HandlerProcess) -> Bool { a === b }
}
