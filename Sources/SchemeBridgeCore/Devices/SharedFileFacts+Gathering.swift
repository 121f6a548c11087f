import Glibc
import LinuxSystem

extension SharedFileFacts {
    /// The facts of descriptor `fd` (a shared file item named `name`, "" for none) of a caller
    /// that is sandboxed or not (nil: not identified); `excluding` the outbox and the Inboxes,
    /// which are taken as given and as resolved (`realpath`). Blocking (examines paths): call it
    /// from a thread of its own.
    public static func gather(fd: borrowing FileDescriptor, name: String, callerSandboxed: Bool?, excluding directories: [String]) -> SharedFileFacts {
        gather(fd: fd, name: name, callerSandboxed: callerSandboxed, excludedAsResolved: resolving(directories))
    }

    /// `directories` as given and as resolved (`realpath`: paths are looked at).
    public static func resolving(_ directories: [String]) -> [String] {
        var excluded = directories
        for directory in directories {
            if let resolved = realpath(directory, nil) {
                excluded.append(String(cString: resolved))
                free(resolved)
            }
        }
        return excluded
    }

    /// ``gather(fd:name:callerSandboxed:excluding:)`` with the excluded directories given as
    /// resolved already (``resolving(_:)``): only the descriptor and its own path are looked at.
    public static func gather(fd: borrowing FileDescriptor, name: String, callerSandboxed: Bool?, excludedAsResolved excluded: [String]) -> SharedFileFacts {
        gather(name: name, callerSandboxed: callerSandboxed, excludedAsResolved: excluded, kernelPath: kernelPath(of: fd), status: try? fd.status())
    }

    /// ``gather(fd:name:callerSandboxed:excludedAsResolved:)`` with the descriptor's path as
    /// ``kernelPath(of:)`` gave it and its `fstat` as taken already (neither read again).
    public static func gather(name: String, callerSandboxed: Bool?, excludedAsResolved excluded: [String],
                              kernelPath path: String?, status: stat?) -> SharedFileFacts {
        let descriptor = status.map(Identity.init)
        var atPath: Identity? = nil
        var readable = false
        if let path {
            var now = stat()
            if stat(path, &now) == 0 { atPath = Identity(now) }
            readable = access(path, R_OK) == 0
        }
        return SharedFileFacts(callerSandboxed: callerSandboxed, name: name, descriptor: descriptor, kernelPath: path, atPath: atPath,
                               readable: readable, excludedDirectories: excluded)
    }

    /// What ``FileDescriptor/kernelPath()`` gives, when it is absolute, whole and valid UTF-8.
    static func kernelPath(of fd: borrowing FileDescriptor) -> String? {
        guard let bytes = fd.kernelPath(), bytes.count < Int(PATH_MAX), bytes.first == UInt8(ascii: "/") else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension SharedFileFacts.Identity {
    init(_ st: stat) {
        self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), isRegular: st.st_mode & S_IFMT == S_IFREG)
    }
}
