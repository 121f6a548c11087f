import Glibc
import Synchronization

/// What the walk behind our CLI (``CallerAncestry/appBehindCLI(pid:installedApp:)``) read and
/// judged of each ancestor, kept for ``lifetime``: the app that runs our CLI again and again
/// (a browser opening links, a script looping), and the shells and launchers above it, are the
/// same processes each time, and reading each one's `cmdline`, `cgroup`, Flatpak info, script
/// and descriptors again was most of what a CLI call cost the service.
///
/// A step is reused only for the same process running the same program: the same pid, the same
/// start time (`/proc/<pid>/stat` field 22: a pid reused by a new process is not the same) and
/// the same executable file (device and inode of `/proc/<pid>/exe`: an `execve` of another
/// program is not the same), both read afresh at every walk, as is the parent. What could change
/// without those changing (a process rewriting its argv, moving to another cgroup, closing its
/// script) is seen at most ``lifetime`` late. The installed apps are asked afresh every time.
public final class AncestorSteps: Sendable {
    /// Which process, running which file.
    struct Key: Equatable {
        let startTime: UInt64
        let device: UInt64
        let inode: UInt64
    }

    /// One ancestor as the walk judged it.
    struct Step {
        let snapshot: CallerAncestry.Snapshot
        let trampoline: Bool
        let script: String?
    }

    private struct Kept {
        let key: Key
        let step: Step
        let expires: ContinuousClock.Instant
    }

    /// How long a step is reused.
    public let lifetime: Duration
    /// Steps kept at most (expired ones go first, then all).
    public let limit: Int
    private let kept = Mutex<[Int32: Kept]>([:])

    public init(lifetime: Duration = .seconds(2), limit: Int = 512) {
        self.lifetime = lifetime
        self.limit = max(1, limit)
    }

    /// Steps held now.
    public var count: Int { kept.withLock { $0.count } }

    /// The step kept for `pid` as `key`, when it has not expired.
    func step(pid: Int32, key: Key) -> Step? {
        let now = ContinuousClock.now
        return kept.withLock { k in
            guard let held = k[pid] else { return nil }
            guard held.key == key, held.expires > now else {
                k[pid] = nil
                return nil
            }
            return held.step
        }
    }

    /// Keeps `step` for `pid` as `key`.
    func keep(_ step: Step, pid: Int32, key: Key) {
        let now = ContinuousClock.now
        kept.withLock { k in
            if k.count >= limit { k = k.filter { $0.value.expires > now } }
            if k.count >= limit { k.removeAll() }
            k[pid] = Kept(key: key, step: step, expires: now + lifetime)
        }
    }

    /// The key of process `pid` from its `stat` text and its executable, nil when either
    /// cannot be read (such a process is read in full every time).
    static func key(pid: Int32, stat bytes: [UInt8], procRoot: String) -> Key? {
        guard let start = startTime(fromStat: bytes) else { return nil }
        var st = stat()
        guard stat("\(procRoot)/\(pid)/exe", &st) == 0 else { return nil }
        return Key(startTime: start, device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Field 22 of a `/proc/<pid>/stat` text: when the process started, in clock ticks since boot.
    static func startTime(fromStat bytes: [UInt8]) -> UInt64? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // Fields after the command start at field 3 (the state): field 22 is the 20th.
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self).trimmingNewline)
    }
}

extension String {
    fileprivate var trimmingNewline: String {
        var s = Substring(self)
        while let l = s.last, l == "\n" { s = s.dropLast() }
        return String(s)
    }
}
