// ContentTypeBench: content-type detection from the command line (not a test).
//   ContentTypeBench type FILE...      prints "TYPE<TAB>FILE" per file, as gio info would type it
//   ContentTypeBench type -0           the same for NUL-separated paths on stdin
//   ContentTypeBench bench [OUT.json]  median detection time per file, ours next to
//                                      `gio info -a standard::content-type` and `file --mime-type`
//                                      measured in the same run, interleaved (make bench)
// The environment's XDG_DATA_HOME / XDG_DATA_DIRS choose the database. Bench knobs: CT_FILES
// (files sampled from /usr/share and /usr/lib, 1200), CT_ROUNDS (5), CT_BATCH (files per tool
// process, 100), CT_SINGLE (one-file processes per tool and round, 15).
import Glibc
import SchemeBridgeCore

func environment() -> [String: String] {
    var env: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
        let s = String(cString: entry)
        if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
        p += 1
    }
    return env
}

/// Writes `text` to descriptor `fd` (1 or 2) whole.
func emit(_ text: String, to fd: Int32 = 1) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return }
        bytes = bytes.dropFirst(n)
    }
}

func readStdinPaths() -> [String] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(0, &buffer, buffer.count)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}

func knob(_ name: String, _ fallback: Int) -> Int { getenv(name).flatMap { Int(String(cString: $0)) } ?? fallback }

let clock = ContinuousClock()

func microseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.isEmpty ? 0 : s[s.count / 2]
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let s = values.sorted()
    return s.isEmpty ? 0 : s[min(s.count - 1, Int(Double(s.count) * p))]
}

/// Regular files below `root`, symlinks not followed, in sorted order.
func regularFiles(under root: String, into files: inout [String]) {
    guard let dir = opendir(root) else { return }
    var entries: [(String, UInt8)] = []
    while let ent = readdir(dir) {
        let name = withUnsafePointer(to: &ent.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
        if name != "." && name != ".." { entries.append((name, ent.pointee.d_type)) }
    }
    closedir(dir)
    for (name, type) in entries.sorted(by: { $0.0 < $1.0 }) {
        let path = root + "/" + name
        if type == UInt8(DT_DIR) { regularFiles(under: path, into: &files) } else if type == UInt8(DT_REG) { files.append(path) }
    }
}

/// Runs `argv` (absolute path first) with output to /dev/null; returns the wall time, or nil
/// when it could not start or failed.
func timedRun(_ argv: [String]) -> Duration? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { for p in cArgs { free(p) } }
    var pid: pid_t = 0
    let start = clock.now
    guard posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let elapsed = clock.now - start
    return status == 0 ? elapsed : nil
}

func which(_ name: String) -> String? {
    for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where access(dir + "/" + name, X_OK) == 0 { return dir + "/" + name }
    return nil
}

/// Copies the first 64 KiB of each file to `dir/copy-N` (no extension: only content tells).
func extensionlessCopies(of files: [String], in dir: String) -> [String] {
    var result: [String] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    for (i, source) in files.enumerated() {
        let input = open(source, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard input >= 0 else { continue }
        let n = read(input, &buffer, buffer.count)
        close(input)
        guard n > 0 else { continue }
        let path = "\(dir)/copy-\(i)"
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { continue }
        _ = write(output, buffer, n)
        close(output)
        result.append(path)
    }
    return result
}

/// Per-file medians (µs) of the three detectors over `files`, interleaved round by round.
func measure(_ files: [String], label: String, types: ContentTypeDatabase, rounds: Int, batch: Int, gio: String?, file: String?) -> [String: Double] {
    var ours: [Double] = [], gioPerFile: [Double] = [], filePerFile: [Double] = [], selfPerFile: [Double] = []
    let batches = stride(from: 0, to: files.count, by: batch).map { Array(files[$0..<min($0 + batch, files.count)]) }
    let me = CommandLine.arguments[0].hasPrefix("/") ? CommandLine.arguments[0] : nil
    var failures = 0
    for _ in 0..<rounds {
        for path in files {
            let start = clock.now
            _ = types.contentType(ofFileAt: path)
            ours.append(microseconds(clock.now - start))
        }
        for b in batches {
            if let gio {
                if let t = timedRun([gio, "info", "-a", "standard::content-type"] + b) { gioPerFile.append(microseconds(t) / Double(b.count)) } else { failures += 1 }
            }
            if let file {
                if let t = timedRun([file, "--mime-type", "-b"] + b) { filePerFile.append(microseconds(t) / Double(b.count)) } else { failures += 1 }
            }
            if let me, let t = timedRun([me, "type"] + b) { selfPerFile.append(microseconds(t) / Double(b.count)) }
        }
    }
    emit("\(label): \(files.count) files × \(rounds) rounds: ours \(median(ours)) µs/file median (p90 \(percentile(ours, 0.9))), "
        + "gio info \(median(gioPerFile)) µs/file, file --mime-type \(median(filePerFile)) µs/file (\(batch) files a process), "
        + "ours as a process \(median(selfPerFile)) µs/file; \(failures) tool failures\n")
    return ["files": Double(files.count), "ours_us": median(ours), "ours_p90_us": percentile(ours, 0.9),
            "gio_info_us": median(gioPerFile), "file_mime_type_us": median(filePerFile), "ours_process_us": median(selfPerFile),
            "failures": Double(failures)]
}

/// One-file processes (ms, p50): what a script pays to type one file.
func singleProcesses(_ files: [String], rounds: Int, gio: String?, file: String?) -> [String: Double] {
    var times: [String: [Double]] = [:]
    let me = CommandLine.arguments[0]
    for _ in 0..<rounds {
        for path in files {
            var commands: [(String, [String])] = [("ours_process_ms", [me, "type", path])]
            if let gio { commands.append(("gio_info_ms", [gio, "info", "-a", "standard::content-type", path])) }
            if let file { commands.append(("file_mime_type_ms", [file, "--mime-type", "-b", path])) }
            for (name, argv) in commands {
                if let t = timedRun(argv) { times[name, default: []].append(microseconds(t) / 1000) }
            }
        }
    }
    var result: [String: Double] = [:]
    for (name, values) in times { result[name] = median(values) }
    emit("one file a process, p50: " + result.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n")
    return result
}

func bench(out: String?) {
    let env = environment()
    let total = knob("CT_FILES", 1200), rounds = knob("CT_ROUNDS", 5), batch = knob("CT_BATCH", 100)
    var all: [String] = []
    for root in ["/usr/share", "/usr/lib"] { regularFiles(under: root, into: &all) }
    let step = max(1, all.count / total)
    let named = all.enumerated().filter { $0.offset % step == 0 }.map(\.element)
    var template = Array("/tmp/contenttype-bench-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    defer {
        for i in 0..<named.count { unlink("\(dir)/copy-\(i)") }
        rmdir(dir)
    }
    let copies = extensionlessCopies(of: Array(named.prefix(named.count / 4)), in: dir)

    var loads: [Double] = []
    for _ in 0..<20 {
        let start = clock.now
        let db = ContentTypeDatabase(environment: env)
        loads.append(microseconds(clock.now - start))
        precondition(db.cacheCount > 0, "no mime.cache found: install shared-mime-info")
    }
    let types = ContentTypeDatabase(environment: env)
    let names = named.map { String($0.split(separator: "/").last ?? "") }
    var nameTimes: [Double] = []
    for _ in 0..<rounds {
        for name in names {
            let start = clock.now
            _ = types.contentType(forName: name)
            nameTimes.append(microseconds(clock.now - start))
        }
    }
    emit("database load \(median(loads)) µs median; by name only \(median(nameTimes)) µs/name median\n")

    let gio = which("gio"), file = which("file")
    // Warm the page cache and the tools once.
    _ = measure(Array(named.prefix(batch)), label: "warm-up", types: types, rounds: 1, batch: batch, gio: gio, file: file)
    let installed = measure(named, label: "installed files", types: types, rounds: rounds, batch: batch, gio: gio, file: file)
    let magic = measure(copies, label: "extension-less copies", types: types, rounds: rounds, batch: batch, gio: gio, file: file)
    let single = singleProcesses(Array(named.prefix(knob("CT_SINGLE", 15))), rounds: rounds, gio: gio, file: file)

    func json(_ d: [String: Double]) -> String {
        "{" + d.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \(($0.value * 100).rounded() / 100)" }.joined(separator: ", ") + "}"
    }
    let report = """
        {"rounds": \(rounds), "batch": \(batch), "database_load_us": \((median(loads) * 10).rounded() / 10), \
        "by_name_us": \((median(nameTimes) * 100).rounded() / 100), "installed": \(json(installed)), \
        "extensionless": \(json(magic)), "single_process": \(json(single))}

        """
    if let out {
        let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd >= 0 {
            _ = Array(report.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
    } else {
        emit(report)
    }
}

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "type":
    let types = ContentTypeDatabase(environment: environment())
    let paths = args.count == 2 && args[1] == "-0" ? readStdinPaths() : Array(args.dropFirst())
    var out = ""
    for path in paths {
        out += "\(types.contentType(ofFileAt: path) ?? "-")\t\(path)\n"
        if out.utf8.count > 1 << 16 {
            emit(out)
            out = ""
        }
    }
    emit(out)
case "bench":
    bench(out: args.count > 1 ? args[1] : nil)
default:
    emit("usage: ContentTypeBench type FILE... | type -0 | bench [OUT.json]\n", to: 2)
    exit(2)
}
