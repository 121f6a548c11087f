import Glibc

extension SharedFileFacts {
    /// The facts of descriptor `fd` (a shared file item named `name`, "" for none) of a caller
    /// that is sandboxed or not (nil: not identified); `excluding` the outbox and the Inboxes,
    /// which are taken as given and as resolved (`realpath`). Blocking (examines paths): call it
    /// from a thread of its own.
    public static func gather(fd: Int32, name: String, callerSandboxed: Bool?, excluding directories: [String]) -> SharedFileFacts {
        var st = stat()
        let descriptor = fstat(fd, &st) == 0 ? Identity(st) : nil
        let path = kernelPath(of: fd)
        var atPath: Identity? = nil
        var readable = false
        if let path {
            var now = stat()
            if stat(path, &now) == 0 { atPath = Identity(now) }
            readable = access(path, R_OK) == 0
        }
        var excluded = directories
        for directory in directories {
            if let resolved = realpath(directory, nil) {
                excluded.append(String(cString: resolved))
                free(resolved)
            }
        }
        return SharedFileFacts(callerSandboxed: callerSandboxed, name: name, descriptor: descriptor, kernelPath: path, atPath: atPath,
                               readable: readable, excludedDirectories: excluded)
    }

    /// What `readlink /proc/self/fd/<fd>` gives, when it is absolute, whole and valid UTF-8.
    static func kernelPath(of fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = buffer.withUnsafeMutableBytes { readlink("/proc/self/fd/\(fd)", $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
        guard n > 0, n < buffer.count, buffer[0] == UInt8(ascii: "/") else { return nil }
        return String(validating: buffer[0..<n], as: UTF8.self)
    }
}

extension SharedFileFacts.Identity {
    init(_ st: stat) {
        self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), isRegular: st.st_mode & S_IFMT == S_IFREG)
    }
}
