import DBus
import DBusTestSupport
import Foundation
import Glibc
import Synchronization

/// Two real KDE Connect engines (`kdeconnectd`) on this one machine, each in a network namespace
/// of its own joined by a veth pair (10.78.0.1 ↔ 10.78.0.2, no other route: traffic stays
/// between the two), each with its own HOME, config, and private session bus — a
/// ``ServiceFixture`` per side, so our service runs beside each engine by bus activation.
/// Everything is started here and stopped by pid; the namespaces are deleted at ``stop()``.
/// Needs root, `ip` (iproute2) and `kdeconnect` (scripts/deps.sh installs both).
///
/// Learned from `shared/recipes/kdeconnect-netns.sh`: a namespace has no broadcast route, so A
/// is told B's address (`customDevices`) and only A starts discovery; pairing is accepted with
/// the D-Bus call; received text lands in the engine's working directory (the side's root).
final class KDEConnectPair: @unchecked Sendable {
    static let engine = "/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd"
    static let bus: BusName = "org.kde.kdeconnect"
    static let daemonPath: ObjectPath = "/modules/kdeconnect"
    static let daemon: InterfaceName = "org.kde.kdeconnect.daemon"
    static let device: InterfaceName = "org.kde.kdeconnect.device"

    /// One side: its fixture (bus, XDG tree, our service), its namespace and engine.
    final class Side: @unchecked Sendable {
        let fixture: ServiceFixture
        let namespace: String
        let address: String
        var engine: ChildProcess?
        var connection: Connection!
        var id = ""

        /// Outside the fixture's root: `XDG_RUNTIME_DIR` (`-run`) and `XDG_CACHE_HOME` (`-cache`).
        let scratch: String

        init(fixture: ServiceFixture, namespace: String, address: String, scratch: String) {
            self.fixture = fixture
            self.scratch = scratch
            self.namespace = namespace
            self.address = address
        }

        /// What the engine logged.
        var engineLog: String { (try? String(contentsOf: fixture.root.appendingPathComponent("kdeconnectd.log"), encoding: .utf8)) ?? "" }
        /// The engine's download folder (QStandardPaths' DownloadLocation: `$HOME/Downloads`).
        var downloads: URL { fixture.root.appendingPathComponent("Downloads") }

        /// Calls the engine.
        func call(_ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ args: [DBusValue] = []) async throws -> [DBusValue] {
            try await connection.call(destination: KDEConnectPair.bus, path: path, interface: interface, member: member, args, timeout: Tools.engineReplyCeiling)
        }

        /// A property of the other side's device object as this engine sees it.
        func deviceProperty(_ peer: String, _ name: String) async -> DBusValue? {
            guard let path = try? ObjectPath("/modules/kdeconnect/devices/\(peer)") else { return nil }
            return try? await call(path, .properties, "Get", [.string(KDEConnectPair.device.rawValue), .string(name)]).first?.unwrapped
        }

        /// Whether the engine's introspection of `path` lists `interface` (the object is exported).
        func exports(_ path: ObjectPath, _ interface: InterfaceName) async -> Bool {
            let xml = try? await call(path, "org.freedesktop.DBus.Introspectable", "Introspect").first?.string
            return xml?.contains("<interface name=\"\(interface.rawValue)\">") == true
        }

        /// Whether this engine has loaded `peer`'s share plugin (its object exists).
        func hasSharePlugin(_ peer: String) async -> Bool {
            guard let path = try? ObjectPath("/modules/kdeconnect/devices/\(peer)") else { return false }
            let loaded = try? await call(path, KDEConnectPair.device, "loadedPlugins").first?.arrayElements?.compactMap(\.string)
            return loaded?.contains("kdeconnect_share") == true
        }
    }

    let a: Side
    let b: Side
    /// Whether both engines run with KDE Connect 23.08's receiving fix (``KDEConnectReceivingFix``).
    let receivingFix: Bool
    /// How many pairs this test process has made (their tags' last digits).
    private static let pairsMade = Mutex(0)
    /// Names the namespaces and veth ends (`sbA<tag>`, `sbvA<tag>`: within IFNAMSIZ).
    private let tag: String

    /// Makes the namespaces and the two fixtures; `configureB` prepares B's tree (handlers,
    /// config) before anything starts. `receivingFix`: both engines are Debian's 22.12 with KDE
    /// Connect 23.08's receiving fix (``KDEConnectReceivingFix``), for tests of what SchemeBridge
    /// sends rather than of the receiving engine's known stall; by default, Debian's as it is.
    init(receivingFix: Bool = false, configureB: (ServiceFixture) throws -> Void = { _ in }) async throws {
        self.receivingFix = receivingFix
        guard geteuid() == 0 else { throw ToolError("the two-device test makes network namespaces: run it as root (make test does)") }
        guard FileManager.default.isExecutableFile(atPath: Self.engine) else {
            throw ToolError("\(Self.engine) is missing: install kdeconnect (scripts/deps.sh)")
        }
        _ = try Tools.path(of: "ip")
        // Unique among the pairs of this test process (the device suites run side by side: a
        // random two digits collided about once in 90 runs, "File exists"), and the pid keeps it
        // apart from other runs: at most 5 + 3 characters, so `sbvA<tag>` stays within IFNAMSIZ.
        let tag = String(getpid() % 100_000) + String(format: "%03d", Self.pairsMade.withLock { n in n += 1; return n % 1000 })
        self.tag = tag
        func side(_ letter: String, _ address: String) throws -> Side {
            let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-kc\(letter)-\(UUID().uuidString.prefix(6))").path
            try FileManager.default.createDirectory(atPath: root + "-run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let fixture = try ServiceFixture(extraEnvironment: [
                "XDG_RUNTIME_DIR": root + "-run", "XDG_CACHE_HOME": root + "-cache",
                "QT_QPA_PLATFORM": "offscreen", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system-bus",
                // The engine's own account of its links and transfers, for a failure's message
                // (SB_KDECONNECT_LOG_RULES replaces the rules, e.g. `kdeconnect.*.debug=true`).
                "QT_LOGGING_RULES": ProcessInfo.processInfo.environment["SB_KDECONNECT_LOG_RULES"] ?? "kdeconnect.core.debug=true",
            ])
            let kc = fixture.configHome.appendingPathComponent("kdeconnect")
            try FileManager.default.createDirectory(at: kc, withIntermediateDirectories: true)
            // The announced name is set before the first start (renaming later forces a reconnect).
            try "[General]\nname=side\(letter)\n".write(to: kc.appendingPathComponent("config"), atomically: true, encoding: .utf8)
            return Side(fixture: fixture, namespace: "sb\(letter)\(tag)", address: address, scratch: root)
        }
        a = try side("A", "10.78.0.1")
        b = try side("B", "10.78.0.2")
        try configureB(b.fixture)
        try await makeNetwork()
    }

    deinit { stop() }

    private func ip(_ args: String...) async throws {
        let r = try await Tools.run(["ip"] + args, timeout: .seconds(60))
        guard r.succeeded else { throw ToolError("ip \(args.joined(separator: " ")): \(r.stderr)") }
    }

    /// Limits what `side` sends over its veth end to `megabits` a second (a token bucket, `tc`):
    /// a transfer then takes a known least time, so a test can act in the middle of it whatever
    /// the machine's load.
    func limitSending(from side: Side, megabitsPerSecond megabits: Int) async throws {
        let dev = vethEnd(of: side)
        let r = try await Tools.run(["tc", "-n", side.namespace, "qdisc", "add", "dev", dev, "root", "tbf",
                                     "rate", "\(megabits)mbit", "burst", "256kb", "latency", "2s"], timeout: .seconds(60))
        guard r.succeeded else { throw ToolError("tc in \(side.namespace): \(r.stderr)") }
    }

    /// The veth end in `side`'s namespace.
    private func vethEnd(of side: Side) -> String { side === a ? "sbvA\(tag)" : "sbvB\(tag)" }

    private func makeNetwork() async throws {
        let (va, vb) = (vethEnd(of: a), vethEnd(of: b))
        try await ip("netns", "add", a.namespace)
        try await ip("netns", "add", b.namespace)
        try await ip("link", "add", va, "type", "veth", "peer", "name", vb)
        try await ip("link", "set", va, "netns", a.namespace)
        try await ip("link", "set", vb, "netns", b.namespace)
        for (side, dev) in [(a, va), (b, vb)] {
            try await ip("-n", side.namespace, "addr", "add", side.address + "/24", "dev", dev)
            try await ip("-n", side.namespace, "link", "set", "lo", "up")
            try await ip("-n", side.namespace, "link", "set", dev, "up")
        }
    }

    /// Starts `side`'s engine in its namespace (working directory: the side's root) and waits
    /// for it on its bus; connects the test to that bus.
    func startEngine(_ side: Side) async throws {
        let env = side.fixture.environment.merging(["DBUS_SESSION_BUS_ADDRESS": side.fixture.bus.address]) { $1 }
        let log = side.fixture.root.appendingPathComponent("kdeconnectd.log").path
        var childEnv = ProcessInfo.processInfo.environment
        for key in ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"] { childEnv.removeValue(forKey: key) }
        for (k, v) in env { childEnv[k] = v }
        if receivingFix { childEnv["LD_PRELOAD"] = try await KDEConnectReceivingFix.built() }
        // `ip netns exec` and `env -C` exec in turn: the pid is the engine's.
        side.engine = try ChildProcess([try Tools.path(of: "ip"), "netns", "exec", side.namespace, "/usr/bin/env", "-C", side.fixture.root.path, Self.engine],
                                       environment: childEnv, stdout: log, stderr: log)
        if side.connection == nil { side.connection = try await Connection.connect(address: side.fixture.bus.address) }
        let driver = BusDriver(side.connection)
        guard await Tools.eventually({ (try? await driver.nameHasOwner(Self.bus.rawValue)) == true }) else {
            throw ToolError("kdeconnectd did not come onto its bus: \(side.engineLog.suffix(2000))")
        }
        // Owning its name is not being ready: kdeconnectd 22.12 takes `org.kde.kdeconnect` and only
        // then exports /modules/kdeconnect (core/daemon.cpp, Daemon::init: registerService, then
        // registerObject), and no signal follows. A call in between fails with UnknownObject
        // (seen in a clean clone's `make test` beside other work), so the test waits until the
        // engine's own introspection of that path names the daemon's interface.
        guard await Tools.eventually({ await side.exports(Self.daemonPath, Self.daemon) }) else {
            throw ToolError("kdeconnectd owns its name but never exported \(Self.daemonPath.rawValue): \(side.engineLog.suffix(2000))")
        }
        side.id = try await side.call(Self.daemonPath, Self.daemon, "selfId").first?.string ?? ""
    }

    /// Starts both engines, lets A find B by address, pairs them over D-Bus and waits until
    /// each has loaded the other's share plugin.
    func startAndPair() async throws {
        try await startEngine(a)
        try await startEngine(b)
        _ = try await a.call(Self.daemonPath, .properties, "Set",
                             [.string(Self.daemon.rawValue), .string("customDevices"), .variant(.strings([b.address]))])
        for (side, peer) in [(a, b), (b, a)] {
            guard await Tools.eventually({ await side.deviceProperty(peer.id, "isReachable")?.bool == true }) else {
                throw ToolError("side \(side.address) never saw \(peer.address): \(side.engineLog.suffix(2000))")
            }
        }
        let bPath = try ObjectPath("/modules/kdeconnect/devices/\(b.id)"), aPath = try ObjectPath("/modules/kdeconnect/devices/\(a.id)")
        _ = try await a.call(bPath, Self.device, "requestPair")
        guard await Tools.eventually({ (try? await self.b.call(aPath, Self.device, "hasPairingRequests").first?.bool) == true }) else {
            throw ToolError("B got no pairing request from A: \(b.engineLog.suffix(2000))")
        }
        _ = try await b.call(aPath, Self.device, "acceptPairing")
        for (side, peer) in [(a, b), (b, a)] {
            guard await Tools.eventually({ await side.deviceProperty(peer.id, "isTrusted")?.bool == true }),
                  await Tools.eventually({ await side.hasSharePlugin(peer.id) }) else {
                throw ToolError("pairing did not complete on \(side.address): \(side.engineLog.suffix(2000))")
            }
        }
    }

    /// Writes a `size`-byte file (whole MiBs) at `url` a MiB at a time, each 4 KiB block marked
    /// with its MiB and block number: big enough that a transfer between the engines takes seconds.
    static func writeBigFile(_ url: URL, size: Int) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw ToolError("cannot create \(url.path)") }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        for n in 0..<(size >> 20) {
            for i in stride(from: 0, to: chunk.count, by: 4096) { chunk[i] = UInt8(truncatingIfNeeded: n &+ i >> 12) }
            try handle.write(contentsOf: chunk)
        }
    }

    /// Stops `side`'s engine (SIGTERM, then SIGKILL) and waits for it to leave its bus.
    func stopEngine(_ side: Side) async {
        side.engine?.terminate()
        side.engine = nil
        if let connection = side.connection {
            _ = await Tools.eventually { (try? await BusDriver(connection).nameHasOwner(Self.bus.rawValue)) == false }
        }
    }

    /// Stops both engines by pid, closes the test's connections, deletes the namespaces (and
    /// with them the veth pair), and stops both fixtures.
    func stop() {
        for side in [a, b] {
            side.engine?.terminate()
            side.engine = nil
            side.connection?.close()
        }
        for ns in [a.namespace, b.namespace] {
            let p = try? ChildProcess(["/usr/sbin/ip", "netns", "del", ns], environment: [:])
            _ = p?.waitBlocking(timeout: .seconds(30))
        }
        for side in [a, b] {
            side.fixture.stop()
            for suffix in ["-run", "-cache"] { try? FileManager.default.removeItem(atPath: side.scratch + suffix) }
        }
    }
}
