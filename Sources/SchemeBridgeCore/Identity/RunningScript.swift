import Glibc
import LinuxSystem

extension CallerAncestry {
    /// The script process `process` runs as its interpreter, when it really does: nil unless
    /// - the process's arguments are what the kernel gives an interpreter for a `#!` script — the
    ///   script (``Snapshot/scriptPath``) right after `argv[0]`, or after the one option the
    ///   script's `#!` line gives (`#!/bin/sh -e`);
    /// - the process's executable is the interpreter that `#!` line names (`#!/usr/bin/env sh`:
    ///   the `sh` found in the system's program directories); and
    /// - the process holds the script open (a descriptor in `/proc/<pid>/fd` on the same file),
    ///   as shells do while they run a script.
    ///
    /// So `bash -s /path/to/calendar <<< "schemebridge open …"` (which never runs the calendar),
    /// a program of its own given the script's path (even with the file open), or a shell whose
    /// argv was rewritten is not taken for the calendar. Interpreters that read the script and
    /// close it (python, perl) are not identified by their script either; their apps are by a
    /// launcher's scope, or by their own executable.
    func runningScript(_ process: Snapshot) -> String? {
        guard let script = process.scriptPath, let exe = process.executable,
              let line = Self.shebang(script), let interpreter = line.first else { return nil }
        let args = Array(process.arguments.dropFirst())
        var expected: String
        var option: String?
        if Self.baseName(interpreter) == "env", line.count >= 2 {
            // `#!/usr/bin/env sh`: env runs the program it names, which gets `[sh, script, …]`.
            guard let found = ProgramLookup.find(line[1], searchPath: Self.systemProgramDirectories) else { return nil }
            expected = found
        } else {
            expected = interpreter
            option = line.count >= 2 ? line[1] : nil
        }
        guard FileSystem.realPath(exe) == FileSystem.realPath(expected) else { return nil }
        let shaped = args.first == script || (option != nil && args.count >= 2 && args[0] == option && args[1] == script)
        guard shaped, holdsOpen(pid: process.pid, script) else { return nil }
        return script
    }

    /// Where `#!/usr/bin/env NAME` is looked up: the system's program directories (not the
    /// caller's `PATH`, which it chose).
    static let systemProgramDirectories = ["/usr/local/bin", "/usr/bin", "/bin"]

    /// The words of `path`'s `#!` line (interpreter, then its one argument as the kernel splits
    /// it); nil when the file does not start with `#!`.
    static func shebang(_ path: String) -> [String]? {
        guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY),
              let st = try? fd.status(), (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        guard let n = try? buffer.withUnsafeMutableBytes({ (b) throws(Errno) -> Int in try fd.read(into: b) }) else { return nil }
        guard n > 2, buffer[0] == UInt8(ascii: "#"), buffer[1] == UInt8(ascii: "!") else { return nil }
        let line = buffer[2..<n].prefix { $0 != 0x0A }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: " \t\r")
        // Linux: the interpreter ends at the first blank; the rest, trimmed, is one argument.
        guard let blank = text.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return text.isEmpty ? nil : [text] }
        let rest = String(text[blank...]).trimmingCharacters(in: " \t")
        return rest.isEmpty ? [String(text[..<blank])] : [String(text[..<blank]), rest]
    }

    /// Whether process `pid` has a descriptor open on the file at `path` (same device and inode).
    func holdsOpen(pid: Int32, _ path: String) -> Bool {
        var target = stat()
        guard stat(path, &target) == 0, let dir = opendir("\(procRoot)/\(pid)/fd") else { return false }
        defer { closedir(dir) }
        var checked = 0
        while let entry = readdir(dir), checked < 4096 {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            checked += 1
            var st = stat()
            if stat("\(procRoot)/\(pid)/fd/\(name)", &st) == 0, st.st_dev == target.st_dev, st.st_ino == target.st_ino { return true }
        }
        return false
    }
}
