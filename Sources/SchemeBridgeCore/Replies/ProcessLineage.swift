/// Whether one process descends from another, read from `/proc/PID/stat` (the reader is
/// bounded and non-blocking). Used to accept a reply from a launched handler's child (a
/// handler script running `schemebridge reply`).
public enum ProcessLineage {
    /// Whether `pid` is `ancestor` or one of its descendants (at most 32 generations up).
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
}
