import Foundation
import Testing
@testable import SchemeBridgeCore

/// A private XDG tree in a temporary directory: one data home, `dataDirCount` data dirs, one
/// config home and one config dir. Directory index 0 is `$XDG_DATA_HOME/applications`, 1… are
/// the data dirs' applications folders, in precedence order.
final class XDGTree: @unchecked Sendable {
    let root: String
    let dataDirCount: Int
    var desktop: String?
    var extraEnvironment: [String: String] = [:]

    /// The folder holding this test process's trees, removed as the process exits. A registry a
    /// test leaves alive past its tree (a background task of the test still holding it) wrote its
    /// index into the tree's `home/.cache` once the write was due, making the removed tree's
    /// folders again; the index is no longer written where the home is gone, and whatever else
    /// such a registry leaves goes here with the rest.
    static let processFolder: String = {
        let folder = TemporaryFolder.make("sb-core")
        atexit { try? FileManager.default.removeItem(atPath: XDGTree.processFolder) }
        return folder
    }()

    init(dataDirCount: Int = 2, desktop: String? = nil, createDirectories: Bool = true) {
        root = TemporaryFolder.make("schemebridge-test", in: XDGTree.processFolder)
        self.dataDirCount = dataDirCount
        self.desktop = desktop
        if createDirectories {
            for i in 0...dataDirCount { mkdir(apps(i)) }
            mkdir(configHome)
            mkdir(configDir)
            mkdir(home)
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    var home: String { root + "/home" }
    var dataHome: String { root + "/data-home" }
    var dataDirs: [String] { (1...max(dataDirCount, 1)).prefix(dataDirCount).map { root + "/data\($0)" } }
    var configHome: String { root + "/config-home" }
    var configDir: String { root + "/config-sys" }
    var bin: String { root + "/bin" }

    /// Applications directory `i` (0 = data home).
    func apps(_ i: Int) -> String {
        i == 0 ? dataHome + "/applications" : dataDirs[i - 1] + "/applications"
    }

    var environment: [String: String] {
        var env: [String: String] = [
            "HOME": home,
            "XDG_DATA_HOME": dataHome,
            "XDG_DATA_DIRS": dataDirs.joined(separator: ":"),
            "XDG_CONFIG_HOME": configHome,
            "XDG_CONFIG_DIRS": configDir,
            "PATH": bin + ":/usr/bin:/bin",
            "LANG": "C",
        ]
        if let desktop { env["XDG_CURRENT_DESKTOP"] = desktop }
        for (k, v) in extraEnvironment { env[k] = v }
        return env
    }

    func mkdir(_ path: String) {
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ path: String, _ content: String) {
        mkdir((path as NSString).deletingLastPathComponent)
        try! content.write(toFile: path, atomically: false, encoding: .utf8)
    }

    func writeBytes(_ path: String, _ bytes: [UInt8]) {
        mkdir((path as NSString).deletingLastPathComponent)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// Writes a desktop entry into applications directory `dir` at `relativePath`: its
    /// `MimeType` lists `x-scheme-handler/S` for each of `schemes`, then `mimeTypes` as written.
    @discardableResult
    func entry(_ dir: Int, _ relativePath: String, schemes: [String] = [], mimeTypes: [String] = [],
               exec: String = "/bin/true %u", extra: String = "") -> String {
        let path = apps(dir) + "/" + relativePath
        write(path, XDGTree.desktopFile(schemes: schemes, mimeTypes: mimeTypes, exec: exec, extra: extra))
        return path
    }

    static func desktopFile(name: String = "Test App", schemes: [String], mimeTypes: [String] = [],
                            exec: String = "/bin/true %u", extra: String = "") -> String {
        var s = "[Desktop Entry]\nType=Application\nName=\(name)\nExec=\(exec)\n"
        let listed = schemes.map { "x-scheme-handler/" + $0 } + mimeTypes
        if !listed.isEmpty {
            s += "MimeType=" + listed.map { $0 + ";" }.joined() + "\n"
        }
        if !extra.isEmpty { s += extra.hasSuffix("\n") ? extra : extra + "\n" }
        return s
    }

    /// Writes a mimeapps list. The tables' keys are schemes (written `x-scheme-handler/S`), or
    /// MIME types as written with `keyPrefix` "".
    func list(_ path: String, defaults: [String: String] = [:], added: [String: String] = [:],
              removed: [String: String] = [:], keyPrefix: String = "x-scheme-handler/") {
        var s = ""
        for (group, table) in [("Default Applications", defaults), ("Added Associations", added),
                               ("Removed Associations", removed)] where !table.isEmpty {
            s += "[\(group)]\n"
            for (scheme, value) in table.sorted(by: { $0.key < $1.key }) {
                s += "\(keyPrefix)\(scheme)=\(value)\n"
            }
        }
        write(path, s)
    }

    func registry(watch: Bool = false) -> Registry {
        Registry(environment: environment, watch: watch)
    }
}

/// `name` in the temporary directory (`$TMPDIR`, else /tmp).
func temporaryPath(_ name: String) -> String {
    URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(name).path
}

/// A new folder in the temporary directory (`prefix-XXXXXX`), removed with the value.
final class TemporaryFolder: Sendable {
    let path: String
    var url: URL { URL(fileURLWithPath: path) }

    init(_ prefix: String) {
        path = Self.make(prefix)
    }

    /// Makes `prefix-XXXXXX` in `parent` (the temporary directory by default); its path.
    static func make(_ prefix: String, in parent: String? = nil) -> String {
        var template = Array((parent.map { $0 + "/" + prefix + "-XXXXXX" } ?? temporaryPath(prefix + "-XXXXXX")).utf8CString)
        precondition(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) } != nil, "mkdtemp failed")
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs a program and returns its status and output.
@discardableResult
func run(_ program: String, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// Finds a required tool; records an issue naming the package when it is missing.
func requireTool(_ name: String, package: String) -> String? {
    for dir in ["/usr/bin", "/bin", "/usr/local/bin"] {
        let path = dir + "/" + name
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    Issue.record("\(name) is required for this test; install the Debian package '\(package)' (apt-get install \(package))")
    return nil
}

/// Polls `condition` until it holds or `timeout` passes; returns the elapsed time when it held.
/// Sleeps with `Task.sleep`, so other tasks (stream consumers) keep running meanwhile. The default
/// ceiling is generous (every use waits for something that must happen, and returns as soon as
/// it does): 2 s was too short beside four CPU hogs (PasteboardCallsTests failed so).
func waitUntil(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < timeout {
        if condition() { return clock.now - start }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition() ? clock.now - start : nil
}

/// Test programs kept as files in `Tests/SchemeBridgeCoreTests/Scripts` (excluded from the target
/// in Package.swift), found from this source file.
enum Scripts {
    /// The file `name` (with its extension, e.g. `record.sh`).
    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts").appendingPathComponent(name).path
    }
}

extension XDGTree {
    /// Waits until what was written so far is older than the registry's margin for coarse
    /// timestamps (a file changed less than 100 ms before it was read is never trusted from the
    /// index or remembered as verified): 250 ms, asleep without holding one of the cooperative
    /// pool's threads (a blocking sleep there held back other tests' background work).
    static func outlastTimestampMargin() async {
        try? await Task.sleep(for: .milliseconds(250))
    }
}
