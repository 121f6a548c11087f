import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An error from the test kit, with a message that says what to do.
public struct ToolError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// The result of running an external program.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public var succeeded: Bool { status == 0 }
}

/// Finding and running the real client tools (`dbus-send`, `gdbus`, python3-dbus, ...).
public enum Tools {
    /// The absolute path of `name` on PATH (or in /usr/bin, /usr/sbin). A missing tool is
    /// an error naming the Debian package, never a silent skip.
    public static func path(of name: String) throws -> String {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin", "/bin"]
        for d in dirs {
            let p = d + "/" + name
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        let packages = ["dbus-daemon": "dbus-daemon", "dbus-send": "dbus-bin", "dbus-monitor": "dbus-bin",
                        "gdbus": "libglib2.0-bin", "gio": "libglib2.0-bin", "busctl": "systemd",
                        "systemd-analyze": "systemd", "desktop-file-validate": "desktop-file-utils", "groff": "groff-base",
                        "Xwayland": "xwayland", "weston-screenshooter": "weston",
                        "debootstrap": "debootstrap", "systemd-nspawn": "systemd-container"]
        throw ToolError("'\(name)' is not installed; run: apt-get install -y \(packages[name] ?? name)")
    }

    /// A new folder whose path a test types key by key into a dialog: lower-case letters, digits,
    /// `.` and `/` only (no key needs Shift, which xdotool can lose beside CPU hogs), `prefix`
    /// then 12 of them. In the temporary directory when its path is so typed (the suites' is,
    /// scripts/tmp-guard.sh), else in /tmp. The caller removes it.
    public static func typeableFolder(_ prefix: String) throws -> URL {
        let tmp = URL(fileURLWithPath: NSTemporaryDirectory()).path
        let typeable = tmp.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "/" }
        let folder = URL(fileURLWithPath: typeable ? tmp : "/tmp")
            .appendingPathComponent(prefix + UUID().uuidString.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(12))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Debian's python3, which has python3-dbus and gi (the `python3` on PATH may be another build).
    public static let systemPython = "/usr/bin/python3"

    /// Runs `argv` to completion without blocking a Swift concurrency thread.
    /// Output is collected through temporary files; a run longer than `timeout` is killed.
    public static func run(
        _ argv: [String], environment: [String: String] = [:], stdin: String? = nil, timeout: Duration = .seconds(300)
    ) async throws -> ProcessResult {
        let exe = argv[0].hasPrefix("/") ? argv[0] : try path(of: argv[0])
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err"), inURL = dir.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data((stdin ?? "").utf8))
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let child = try ChildProcess([exe] + argv.dropFirst(), environment: env, stdin: inURL.path, stdout: outURL.path, stderr: errURL.path)
        let killer = Task {
            try await Task.sleep(for: timeout)
            child.signal(SIGKILL)
        }
        let status = await child.wait()
        killer.cancel()
        let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return ProcessResult(status: status, stdout: out, stderr: err)
    }

    /// Starts `argv` in the background (for monitors and daemons); output goes to the given files.
    public static func spawn(_ argv: [String], environment: [String: String] = [:], stdout: URL? = nil, stderr: URL? = nil) throws -> ChildProcess {
        let exe = argv[0].hasPrefix("/") ? argv[0] : try path(of: argv[0])
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        return try ChildProcess([exe] + argv.dropFirst(), environment: env, stdout: stdout?.path ?? "/dev/null", stderr: stderr?.path ?? "/dev/null")
    }

    /// The ceiling of a wait for an event in an end-to-end test: generous, because a loaded
    /// machine (two CPU-bound processes beside the suite) can slow anything down by seconds. A
    /// correct run never comes near it; it only bounds how long a broken one takes to fail.
    /// Three minutes: a bus activation beside a parallel release build once took 93 s.
    public static let eventCeiling: Duration = .seconds(180)
    /// How long a test waits for a real third-party engine (kdeconnectd, GSConnect under gjs) to
    /// answer a D-Bus call: beside four CPU hogs a call to GSConnect once went unanswered for 60 s
    /// (NoReply; GSConnectShareTests), and a reply that comes late is not a failure of ours.
    public static let engineReplyCeiling: Duration = .seconds(300)

    /// Polls `condition` until it is true or `timeout` passes; returns whether it became true.
    /// The pause between polls grows from 10 ms to 250 ms, so a slow event costs little CPU
    /// (conditions often start a process) while a quick one is seen at once.
    public static func eventually(timeout: Duration = eventCeiling, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(10)
        while clock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(250))
        }
        return try await condition()
    }
}

/// A file-backed gate for handler programs in end-to-end tests: a handler blocks in
/// ``shellWait(_:)`` until the test calls ``release(_:)`` (or removes the gate's folder), so a
/// handler lives exactly as long as the test needs it, never a fixed time.
public struct Gate: Sendable {
    /// The folder holding the gates' files; removing it releases every gate.
    public let directory: URL

    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The file whose existence opens gate `name`.
    public func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A shell command that returns once gate `name` is open or the folder is gone (a cheap
    /// poll: one `test` and one `sleep 0.1` a tenth of a second).
    public func shellWait(_ name: String) -> String {
        "while [ ! -e '\(file(name))' ] && [ -d '\(directory.path)' ]; do sleep 0.1; done"
    }

    /// Opens gate `name`.
    public func release(_ name: String) {
        _ = FileManager.default.createFile(atPath: file(name), contents: Data())
    }

    /// Whether gate `name` was opened.
    public func isReleased(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }
}

/// Paths of this package's own built programs and files, for end-to-end tests.
public enum Built {
    /// The folder holding the built executables (the test bundle sits beside them).
    public static var binDirectory: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent()
    }

    /// Where the shipped programs under test come from: `SCHEMEBRIDGE_TEST_PROGRAMS` when set (e.g.
    /// `.build/release`: `make test-release` runs the end-to-end suites against the release build),
    /// else ``binDirectory``.
    public static var programDirectory: URL? {
        guard let dir = ProcessInfo.processInfo.environment["SCHEMEBRIDGE_TEST_PROGRAMS"], !dir.isEmpty else { return nil }
        return URL(fileURLWithPath: dir).resolvingSymlinksInPath()  // as /proc/PID/exe names the programs
    }

    /// The folder of the shipped programs under test: ``programDirectory`` or ``binDirectory``.
    public static var programs: URL { programDirectory ?? binDirectory }

    /// A built executable of this package, e.g. `schemebridged`: from ``programDirectory`` when it
    /// has it, else from ``binDirectory`` (test-only programs are built for the tests only).
    public static func executable(_ name: String) throws -> String {
        if let dir = programDirectory, FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent(name).path) {
            return dir.appendingPathComponent(name).path
        }
        let path = binDirectory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            let how = name == "schemebridge" ? "`make lean-entry` (it is C, built by the Makefile)" : "`swift build --build-tests`"
            throw ToolError("\(name) is not built at \(path): run \(how) (make test does)")
        }
        return path
    }

    /// The package's root folder (found from this source file).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
