import CLinux
import Glibc

/// A POSIX thread of our own, for the few loops that must not run on the cooperative pool
/// (the D-Bus loop, the inotify watcher, the child reaper, parallel parsing): they block in
/// `poll` or do CPU work that must not starve tasks.
public struct OSThread: Sendable {
    private let id: pthread_t

    /// Starts a thread running `body`; nil when the system refuses (the error number is passed
    /// to `failed`). The thread is named `name` (15 bytes at most are kept) for `ps` and `perf`.
    public static func start(name: String, failed: (Int32) -> Void = { _ in },
                             _ body: @escaping @Sendable () -> Void) -> OSThread? {
        let box = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.name.withCString { clinux_set_thread_name($0) }
            body.run()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            failed(rc)
            return nil
        }
        return OSThread(id: tid)
    }

    /// Starts a thread that nobody joins; traps when the system cannot start one (a process
    /// that cannot start its loop threads cannot work at all).
    public static func detached(name: String, _ body: @escaping @Sendable () -> Void) {
        guard let thread = start(name: name, failed: { rc in preconditionFailure("pthread_create failed: \(rc)") }, body) else { return }
        thread.detach()
    }

    /// Waits for the thread to end.
    public func join() { pthread_join(id, nil) }

    /// Lets the thread end on its own.
    public func detach() { pthread_detach(id) }

    /// Whether this is the calling thread.
    public var isCurrent: Bool { pthread_equal(id, pthread_self()) != 0 }

    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
}
