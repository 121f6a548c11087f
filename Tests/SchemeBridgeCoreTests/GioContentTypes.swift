import CLinux
import Glibc

/// `gio info -a standard::content-type` over many files, run with our own spawn (never
/// Foundation's `Process` beside the core's child reaper), its output read from a file.
enum GioContentTypes {
    /// The environment the tools run with: the given XDG directories, nothing else that could
    /// make GLib load modules or talk to a bus.
    static func toolEnvironment(dataHome: String, dataDirs: String) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "LANG": "C", "HOME": dataHome, "XDG_DATA_HOME": dataHome, "XDG_DATA_DIRS": dataDirs,
         "GIO_USE_VFS": "local", "GIO_USE_VOLUME_MONITOR": "unix", "GSETTINGS_BACKEND": "memory"]
    }

    /// The type `gio` gives each path (paths it cannot examine are missing from the result),
    /// 400 paths a `gio` process.
    static func types(of paths: [String], gio: String, environment: [String: String]) throws -> [String: String] {
        var result: [String: String] = [:]
        var start = 0
        while start < paths.count {
            let batch = Array(paths[start..<min(start + 400, paths.count)])
            start += batch.count
            let out = try runCapturingOutput([gio, "info", "-a", "standard::content-type"] + batch, environment: environment)
            var uri: String? = nil
            for line in out.split(separator: UInt8(ascii: "\n")) {
                if line.starts(with: Array("uri: file://".utf8)) {
                    uri = String(decoding: percentDecoded(line.dropFirst(12)), as: UTF8.self)
                } else if let path = uri, line.starts(with: Array("  standard::content-type: ".utf8)) {
                    result[path] = String(decoding: line.dropFirst(26), as: UTF8.self)
                    uri = nil
                }
            }
        }
        return result
    }

    static func percentDecoded(_ s: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "%"), i + 2 < s.endIndex,
               let v = UInt8(String(decoding: s[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                out.append(v)
                i += 3
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return out
    }
}

/// Runs `argv` (absolute program path) with `environment`, standard output to a temporary file,
/// and returns what it wrote once it has exited.
func runCapturingOutput(_ argv: [String], environment: [String: String]) throws -> [UInt8] {
    try runTool(argv, environment: environment).output
}

/// Runs `argv` (absolute program path) with `environment` (standard input and error on
/// `/dev/null`) and returns its exit status — 128 + the signal when one ended it — and what it
/// wrote to standard output. Our own spawn, never Foundation's `Process` beside the core's
/// child reaper.
func runTool(_ argv: [String], environment: [String: String]) throws -> (status: Int32, output: [UInt8]) {
    var template = Array(temporaryPath("schemebridge-tool-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw ToolFailure("cannot create a temporary file") }
    unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    defer { close(fd) }
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for p in cArgs { free(p) }
        for p in cEnv { free(p) }
    }
    var pid: pid_t = 0
    let rc = clinux_spawn_io(argv[0], cArgs, cEnv, nil, -1, fd, -1, 0, &pid)
    guard rc == 0 else { throw ToolFailure("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var offset: off_t = 0
    while true {
        let n = pread(fd, &buffer, buffer.count, offset)
        if n <= 0 { break }
        output += buffer[0..<n]
        offset += off_t(n)
    }
    return (code, output)
}

struct ToolFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
