// IndexBench: builds the SchemeBridgeCore registry over generated desktop entries and reports
// build time, resident memory, lookup cost and live-update latency. Not a test: it prints
// numbers. Usage: IndexBench [entries] (default 10000).
import Glibc
import SchemeBridgeCore

func rssKiB(_ field: String = "VmRSS") -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if s.hasPrefix(field + ":") {
            return Int(s.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? -1
        }
    }
    return -1
}

func write(_ path: String, _ text: String) {
    let f = fopen(path, "w")!
    fputs(text, f)
    fclose(f)
}

func ms(_ d: Duration) -> String {
    let v = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    return String(Int(v * 10) / 10) + "." + String(Int(v * 10) % 10) + " ms"
}

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 10000 : 10000
// A second argument names a directory to generate into (or reuse, if already generated) and keep.
let keep = CommandLine.arguments.count > 2
var template = Array("/tmp/indexbench-XXXXXX".utf8CString)
let root = keep ? CommandLine.arguments[2]
    : template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
let apps = root + "/data/applications"
let reuse = keep && access(root + "/config/mimeapps.list", F_OK) == 0
mkdir(root, 0o755)
mkdir(root + "/data", 0o755)
mkdir(apps, 0o755)
mkdir(root + "/config", 0o755)
for v in 0..<20 { mkdir(apps + "/vendor\(v)", 0o755) }
let languages = ["de", "fr", "es", "it", "ja", "zh_CN", "pt_BR", "ru", "pl", "nl"]
for i in 0..<count where !reuse {
    var text = "[Desktop Entry]\nType=Application\nName=Application \(i)\n"
    for l in languages { text += "Name[\(l)]=Anwendung \(i) \(l)\nComment[\(l)]=Does things number \(i)\n" }
    text += "Exec=/usr/bin/app\(i) --open %u\nIcon=app\(i)\nTerminal=false\nCategories=Utility;\n"
    text += "MimeType=text/plain;x-scheme-handler/s\(i % 2000);x-scheme-handler/common\(i % 7);\n"
    let rel = i % 5 == 0 ? "vendor\(i % 20)/app\(i).desktop" : "app\(i).desktop"
    write(apps + "/" + rel, text)
}
func desktopID(_ i: Int) -> String { i % 5 == 0 ? "vendor\(i % 20)-app\(i).desktop" : "app\(i).desktop" }
var list = "[Default Applications]\n"
for s in 0..<100 { list += "x-scheme-handler/s\(s)=\(desktopID(s + 2000))\n" }
write(root + "/config/mimeapps.list", list)

let env = ["HOME": root, "XDG_DATA_HOME": root + "/data", "XDG_DATA_DIRS": root + "/none",
           "XDG_CONFIG_HOME": root + "/config", "XDG_CONFIG_DIRS": root + "/none", "PATH": "/usr/bin:/bin"]
let clock = ContinuousClock()

// Memory: one index in a fresh process.
let rssBefore = rssKiB()
var registry: Registry? = Registry(environment: env, watch: false)
let rssAfter = rssKiB()
// Give freed memory back to the system so that VmRSS counts what the index keeps.
typealias TrimFunction = @convention(c) (Int) -> Int32
if let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
    _ = unsafeBitCast(sym, to: TrimFunction.self)(0)
}
let rssTrimmed = rssKiB()

var builds: [Duration] = []
let coldRounds = Int(getenv("COLD_ROUNDS").map { String(cString: $0) } ?? "") ?? 5
for _ in 0..<coldRounds {
    registry = nil
    let start = clock.now
    registry = Registry(environment: env, watch: false, index: .disabled)
    builds.append(clock.now - start)
}
builds.sort()
// With the on-disk index: one build writes it, the next ones read it.
let cache = root + "/cache"
Registry(environment: env, watch: false, index: .directory(cache)).close()
usleep(300_000)
Registry(environment: env, watch: false, index: .directory(cache)).close()
let warmRounds = Int(getenv("WARM_ROUNDS").map { String(cString: $0) } ?? "") ?? 5
var warm: [Duration] = []
var warmCPU: [Double] = []
var warmReport = RegistryStartup()
func cpuMs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
}
for _ in 0..<warmRounds {
    registry = nil
    let start = clock.now
    let cpu0 = cpuMs()
    registry = Registry(environment: env, watch: false, index: .directory(cache))
    warmCPU.append(cpuMs() - cpu0)
    warm.append(clock.now - start)
    warmReport = registry!.startup
}
warm.sort()
warmCPU.sort()
let r = registry!
precondition(r.handlers(forScheme: "common0").count > 1000)
precondition(r.defaultHandler(forScheme: "s5")?.fileName == desktopID(2005))
precondition(r.defaultHandler(forScheme: "s6")?.fileName == desktopID(2006))

let watchStart = clock.now
let live = Registry(environment: env, watch: true)
let watchBuild = clock.now - watchStart

let lookups = 1_000_000
var hits = 0
let lookupStart = clock.now
for i in 0..<lookups { hits &+= r.handlers(forScheme: "s\(i % 2000)").count }
let lookupTime = clock.now - lookupStart
precondition(hits > 0)

var latencies: [Duration] = []
for i in 0..<20 {
    let start = clock.now
    write(apps + "/live\(i).desktop", "[Desktop Entry]\nType=Application\nName=Live\nExec=/bin/true %u\nMimeType=x-scheme-handler/live\(i);\n")
    while live.defaultHandler(forScheme: "live\(i)") == nil { usleep(200) }
    latencies.append(clock.now - start)
}
latencies.sort()
live.close()

print("IndexBench: \(count) desktop entries (\(count / 5) in vendor subdirectories, ~1 KiB each), 2007 schemes")
if !builds.isEmpty {
    print("index build (no watcher): median \(ms(builds[builds.count / 2])), min \(ms(builds[0])), max \(ms(builds[builds.count - 1])) over \(builds.count) builds")
}
print("index build from the on-disk index: median \(ms(warm[warm.count / 2])), min \(ms(warm[0])) over \(warm.count) builds, CPU median \(Int(warmCPU[warmCPU.count / 2] * 10)) ms/10 (used: \(warmReport.usedIndex), files parsed: \(warmReport.filesParsed), directories walked: \(warmReport.directoriesWalked))")
print("index build with inotify watcher armed: \(ms(watchBuild))")
print("memory: resident +\(rssTrimmed - rssBefore) KiB kept by the index after malloc_trim (+\(rssAfter - rssBefore) KiB before trimming; VmRSS \(rssBefore) → \(rssAfter) → \(rssTrimmed) KiB)")
print("lookup handlers(forScheme:): \(Double(Int(Double(lookupTime.components.attoseconds / 1_000_000_000 + lookupTime.components.seconds * 1_000_000_000) / Double(lookups) * 10)) / 10) ns per call (\(lookups) calls)")
print("live update (write → visible): median \(ms(latencies[10])), max \(ms(latencies[19])) over 20 writes")

// Clean up.
func removeTree(_ path: String) {
    guard let d = opendir(path) else { unlink(path); return }
    while let e = readdir(d) {
        let name = withUnsafePointer(to: &e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
        if name == "." || name == ".." { continue }
        let child = path + "/" + name
        if e.pointee.d_type == UInt8(DT_DIR) { removeTree(child) } else { unlink(child) }
    }
    closedir(d)
    rmdir(path)
}
for i in 0..<20 { unlink(apps + "/live\(i).desktop") }
if !keep { removeTree(root) }
