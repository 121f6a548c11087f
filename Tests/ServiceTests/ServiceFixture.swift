import Foundation
import DBusTestSupport
import SchemeBridgeContract

/// A temp XDG tree (data, config, handler scripts) plus a private bus whose service dir holds
/// the shipped activation file pointing at the built daemon. The daemon, started by bus
/// activation, inherits the tree's XDG variables from the bus.
final class ServiceFixture: @unchecked Sendable {
    static let name = Contract.busName.rawValue
    static let path = Contract.objectPath.rawValue
    static let interface = Contract.interface.rawValue

    let root: URL
    /// The system data dir (`XDG_DATA_DIRS`): outside the fixture's `$HOME` (`root`), as
    /// `/usr/share` is outside a user's home (`$HOME` is the user's side whoever owns it);
    /// `root/sysdata` links to it.
    let systemData: URL
    /// `XDG_RUNTIME_DIR` when made with `runtimeDirectory` (`root` + `-run`).
    let runtime: URL
    let bus: PrivateBus
    var dataHome: URL { root.appendingPathComponent("data") }
    var applications: URL { dataHome.appendingPathComponent("applications") }
    var configHome: URL { root.appendingPathComponent("config") }
    var bin: URL { root.appendingPathComponent("bin") }
    var records: URL { root.appendingPathComponent("records") }
    /// Gates that handler programs wait on (``hold(_:)``); removing `root` at ``stop()`` opens them all.
    let gate: Gate

    /// The environment the bus (and so the service it starts) runs with: the tree's XDG variables.
    let environment: [String: String]

    /// `anyUser`: the private bus admits clients of any uid (see ``PrivateBus/init(environment:anyUser:systemdActivation:)``).
    /// `dataDirsInHome`: data dirs (relative to `root`) put before the system one in `XDG_DATA_DIRS`.
    /// `systemdActivation`: the bus asks `org.freedesktop.systemd1` to start the service (``FakeSystemd``).
    /// `unsetEnvironment`: variables the bus (and so the service) runs without, e.g. `DISPLAY`.
    /// `busLauncher`: see ``PrivateBus/init(environment:anyUser:systemdActivation:unset:launcher:ownHome:)``.
    /// `runtimeDirectory`: `XDG_RUNTIME_DIR` is a folder of the fixture's own (``runtime``, outside `root` as a
    /// session's is outside the home), removed with it.
    init(extraEnvironment: [String: String] = [:], anyUser: Bool = false, dataDirsInHome: [String] = [], systemdActivation: Bool = false,
         unsetEnvironment: [String] = [], busLauncher: [String] = [], runtimeDirectory: Bool = false) throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-svc-\(UUID().uuidString.prefix(8))")
        self.root = root
        systemData = URL(fileURLWithPath: root.path + "-sys")
        runtime = URL(fileURLWithPath: root.path + "-run")
        let fm = FileManager.default
        if runtimeDirectory { try fm.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
        for d in ["data/applications", "config", "bin", "records", "sysconfig"] + dataDirsInHome.map({ $0 + "/applications" }) {
            try fm.createDirectory(at: root.appendingPathComponent(d), withIntermediateDirectories: true)
        }
        try fm.createDirectory(at: systemData.appendingPathComponent("applications"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(at: root.appendingPathComponent("sysdata"), withDestinationURL: systemData)
        var env = [
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_DATA_DIRS": (dataDirsInHome.map { root.appendingPathComponent($0).path } + [systemData.path]).joined(separator: ":"),
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_CONFIG_DIRS": root.appendingPathComponent("sysconfig").path,
            "HOME": root.path,
            "PATH": root.appendingPathComponent("bin").path + ":/usr/bin:/bin",
            "XDG_CURRENT_DESKTOP": "",
        ]
        if runtimeDirectory { env["XDG_RUNTIME_DIR"] = runtime.path }
        for (k, v) in extraEnvironment { env[k] = v }
        // The system's shared-mime-info database (documents' content types), and nothing else of /usr/share.
        try fm.createSymbolicLink(at: systemData.appendingPathComponent("mime"), withDestinationURL: URL(fileURLWithPath: "/usr/share/mime"))
        gate = try Gate(directory: root.appendingPathComponent("gates"))
        environment = env
        bus = try PrivateBus(environment: env, anyUser: anyUser, systemdActivation: systemdActivation, unset: unsetEnvironment, launcher: busLauncher)
        let template = try String(contentsOf: Built.packageRoot.appendingPathComponent("dbus/" + Contract.serviceFileName + ".in"), encoding: .utf8)
        try template.replacingOccurrences(of: "@bindir@", with: Built.programs.path)
            .write(to: bus.serviceDirectory.appendingPathComponent("\(Self.name).service"), atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    /// Stops the bus, waits for the service it started (``PrivateBus/stop()``: it writes into
    /// `$HOME/.cache` as it exits), then removes the fixture's folders, which opens every gate.
    func stop() {
        bus.stop()
        for folder in [root, systemData, runtime] { try? FileManager.default.removeItem(at: folder) }
    }

    /// A handler program that writes its argv (NUL-separated) and some environment to
    /// `records/<name>.argv` / `.env`, then exits. Each is written whole under another name and
    /// renamed, the environment first: a test that waits for either name reads it complete.
    @discardableResult
    func recorder(_ name: String, recordsAs record: String? = nil) throws -> String {
        let path = bin.appendingPathComponent(name).path
        let name = record ?? name
        try """
            #!/bin/sh
            printf '%s\\0' "$@" > "\(records.path)/\(name).argv.tmp"
            printf 'token=%s\\nstartup=%s\\nsource=%s\\n' "$XDG_ACTIVATION_TOKEN" "$DESKTOP_STARTUP_ID" "$SCHEMEBRIDGE_SOURCE" > "\(records.path)/\(name).env.tmp"
            mv "\(records.path)/\(name).env.tmp" "\(records.path)/\(name).env"
            mv "\(records.path)/\(name).argv.tmp" "\(records.path)/\(name).argv"
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// A handler program that records its argv and environment like ``recorder(_:)``, then stays
    /// until the test opens gate `name` (``release(_:)``) or stops the fixture: a handler that
    /// lives exactly as long as the test needs, however loaded the machine.
    @discardableResult
    func holdingRecorder(_ name: String) throws -> String {
        let recorder = try self.recorder("\(name)-recorder", recordsAs: name)
        let path = bin.appendingPathComponent(name).path
        try "#!/bin/sh\n\(recorder) \"$@\"\n\(gate.shellWait(name))\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// Lets the handler holding on gate `name` exit.
    func release(_ name: String) { gate.release(name) }

    /// What the bus-activated service logged (it inherits the bus daemon's stderr).
    var serviceLog: String { (try? String(contentsOf: bus.directory.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? "" }

    /// `$XDG_CONFIG_HOME/schemebridge/config` (read live by the service).
    func writeConfig(_ text: String) throws {
        let dir = configHome.appendingPathComponent("schemebridge")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try text.write(to: dir.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    /// The service's process id (nil when it is not running).
    func servicePID() async -> Int32? {
        let r = try? await Tools.run(["dbus-send", "--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                      "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:\(Self.name)"])
        guard r?.status == 0 else { return nil }
        return r?.stdout.split(separator: " ").last.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The launch-image helpers (`schemebridge-splash --image …`) the service is running now.
    func splashHelpers() async -> [Int32] {
        guard let service = await servicePID() else { return [] }
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(service)/task")) ?? []
        let children = tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(service)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
        return children.filter { pid in
            let argv = ((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return argv.first?.hasSuffix("/schemebridge-splash") == true && argv.contains("--image")
        }
    }

    /// Writes `applications/<id>` (in the user's data dir unless `system`).
    func entry(_ id: String, _ body: String, system: Bool = false) throws {
        let dir = system ? systemData.appendingPathComponent("applications") : applications
        try ("[Desktop Entry]\nType=Application\n" + body + "\n").write(to: dir.appendingPathComponent(id), atomically: true, encoding: .utf8)
    }

    /// The argv a recorder received, once it has run.
    func recordedArgv(_ name: String, timeout: Duration = Tools.eventCeiling) async -> [String]? {
        let url = records.appendingPathComponent("\(name).argv")
        _ = await Tools.eventually(timeout: timeout) { FileManager.default.fileExists(atPath: url.path) }
        guard let data = try? Data(contentsOf: url) else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The environment a ``recorder(_:)`` handler recorded. A launch returns once the handler was
    /// started, not once it wrote: this waits (up to the event ceiling) for its argv record, which
    /// it moves into place after the environment's (`ourCLIRunDirectlyByAnAppIsThatApp` read an
    /// environment not written yet). Blocking, so it can be used in expectations' messages too.
    func recordedEnv(_ name: String) -> String {
        let argv = records.appendingPathComponent("\(name).argv").path
        let deadline = ContinuousClock.now + Tools.eventCeiling
        while !FileManager.default.fileExists(atPath: argv) && ContinuousClock.now < deadline { usleep(10_000) }
        return (try? String(contentsOf: records.appendingPathComponent("\(name).env"), encoding: .utf8)) ?? ""
    }

    /// `dbus-send --print-reply` of a contract method. It waits up to 300 s for the reply, not
    /// libdbus's 25 s: the first call of a test starts the service by bus activation, which a
    /// machine busy with the whole suite (or a parallel build) can make slow.
    func dbusSend(_ method: String, _ args: String...) async throws -> ProcessResult {
        try await Tools.run(["dbus-send", "--bus=\(bus.address)", "--print-reply", "--reply-timeout=300000", "--dest=\(Self.name)", Self.path,
                             "\(Self.interface).\(method)"] + args)
    }

    /// `gdbus call` of a contract method (waiting up to 300 s, as ``dbusSend(_:_:)``).
    func gdbus(_ method: String, _ args: String...) async throws -> ProcessResult {
        try await Tools.run(["gdbus", "call", "--address", bus.address, "--timeout", "300", "--dest", Self.name, "--object-path", Self.path,
                             "--method", "\(Self.interface).\(method)"] + args)
    }
}
