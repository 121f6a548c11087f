/// Whether one process descends from another, read from `/proc/PID/stat` (the reader is
/// bounded and non-blocking). Used to accept a reply, or a callback, from a launched handler's
/// child (a handler script running `schemebridge reply` or `schemebridge open`).
public enum ProcessLineage {
    /// Whether `pid` is `ancestor` or one of its descendants (at most 32 generations up), by pid
    /// alone: a pid reused after its process ended matches too. Prefer ``isSelfOrDescendant(_:of:procRoot:)``
    /// with a ``HandlerProcess``.
    public static func isSelfOrDescendant(_ pid: Int32, of ancestor: Int32, procRoot: String = "/proc") -> Bool {
        var current = pid
        for _ in 0..<CallerAncestry.maximumDepth {
            if current == ancestor { return true }
            guard current > 1, let stat = try? FileSystem.readFile("\(procRoot)/\(current)/stat", limit: 4096),
                  let parent = CallerAncestry.parentPID(fromStat: stat), parent != current else { return false }
            current = parent
        }
        return false
    }

    /// Whether `pid` is `handler`'s process or one of its descendants, and `handler` still runs
    /// once that was seen. Its pidfd is asked after the walk: a process that has not exited now
    /// had its pid all along, so the pid met in the walk was the handler's own, never one the
    /// kernel gave to another process after the handler ended (during the round trip that
    /// follows a handler's exit, say).
    public static func isSelfOrDescendant(_ pid: Int32, of handler: HandlerProcess, procRoot: String = "/proc") -> Bool {
        isSelfOrDescendant(pid, of: handler.pid, procRoot: procRoot) && handler.isRunning
    }
}
