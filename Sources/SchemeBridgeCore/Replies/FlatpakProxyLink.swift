import Glibc

/// How a Flatpak app's xdg-dbus-proxy — the connection its bus calls come from — is tied to the
/// app a handler launch started. flatpak starts the proxy outside the app's process tree (it is
/// re-parented to init), so the pid lineage cannot tie them; but it hands the proxy one end of a
/// pipe (`--sync-fd`) whose other end the app's sandbox holds as long as it runs. A pipe is a
/// kernel object: a program that claims the app's id with a forged `/.flatpak-info` cannot hold
/// that pipe without ptrace rights over the app. Pipes the service itself holds (its standard
/// output and error, which every launched program inherits) do not count.
///
/// Reads `/proc/PID/fd` links and `/proc/PID/task/TID/children` (bounded; `readlink` on `/proc`
/// never reaches into the files): call it where `/proc` is read for replies.
public enum FlatpakProxyLink {
    /// Whether process `caller` holds a pipe that a process of `handler`'s tree (itself and its
    /// descendants, at most 64) holds too, while `handler` runs.
    public static func links(_ caller: Int32, to handler: HandlerProcess, procRoot: String = "/proc") -> Bool {
        let own = pipes(of: getpid(), procRoot: procRoot)
        let callerPipes = pipes(of: caller, procRoot: procRoot).subtracting(own)
        guard !callerPipes.isEmpty else { return false }
        for pid in tree(of: handler.pid, procRoot: procRoot) where !pipes(of: pid, procRoot: procRoot).isDisjoint(with: callerPipes) {
            return handler.isRunning
        }
        return false
    }

    /// The pipes (`pipe:[INODE]` link targets) process `pid` holds, at most 4096 descriptors read.
    static func pipes(of pid: Int32, procRoot: String) -> Set<String> {
        let dir = "\(procRoot)/\(pid)/fd"
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var found: Set<String> = []
        for _ in 0..<4096 {
            guard let entry = readdir(d) else { break }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            guard let target = FileSystem.linkTarget("\(dir)/\(name)", capacity: 127) else { continue }
            if target.hasPrefix("pipe:[") { found.insert(target) }
        }
        return found
    }

    /// `pid` and its descendants, breadth first, at most 64.
    static func tree(of pid: Int32, procRoot: String) -> [Int32] {
        var all: [Int32] = [pid]
        var index = 0
        while index < all.count && all.count < 64 {
            let current = all[index]
            index += 1
            guard let d = opendir("\(procRoot)/\(current)/task") else { continue }
            var tasks: [String] = []
            while let entry = readdir(d), tasks.count < 256 {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.first?.isNumber == true { tasks.append(name) }
            }
            closedir(d)
            for task in tasks {
                guard let bytes = try? FileSystem.readFile("\(procRoot)/\(current)/task/\(task)/children", limit: 4096) else { continue }
                for word in String(decoding: bytes, as: UTF8.self).split(separator: " ") {
                    if let child = Int32(String(word.filter(\.isNumber))), !all.contains(child), all.count < 64 { all.append(child) }
                }
            }
        }
        return all
    }
}
