import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 12, item 1: a program of the session fakes a Flatpak. It connects to the bus, enters a
/// user namespace of its own (no privilege needed), writes `/.flatpak-info` into a directory it
/// owns and `chroot`s there, then calls the service, which reads `/proc/<pid>/root/.flatpak-info`.
///
/// The conclusion (README, "Caller identity"): nothing a program of the same user cannot forge
/// tells a Flatpak app apart, so a Flatpak id is a claim like any other id. What must hold is
/// that the forger's files cannot hang anything: a FIFO, or a file system that never answers
/// (FUSE, mountable in a user namespace wherever `/dev/fuse` is open to the user, as on Debian
/// desktops), cost the forger its identity and nobody else anything; SIGTERM still stops the service.
@Suite struct ForgedFlatpakTests {
    /// The attacker, `Clients/ForgedFlatpak/attacker.py`, run by Debian's python3: `attacker.py
    /// MODE ROOT URL` with MODE `file` (a forged info file naming org.example.Calendar), `fifo` or
    /// `fuse`. It prints `ready` once in its namespace, then the outcome of `OpenURL(URL)`, and
    /// stays until killed. Copied into the fixture's root, where `nobody` may read it.
    static func attacker(_ f: ServiceFixture) throws -> String {
        let path = f.root.appendingPathComponent("attacker.py").path
        try String(contentsOfFile: Clients.path("ForgedFlatpak/attacker"), encoding: .utf8).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A vault that admits org.example.Calendar only, and an open scheme anyone may use.
    static func world(anyUser: Bool) throws -> ServiceFixture {
        let f = try ServiceFixture(anyUser: anyUser)
        try f.entry("vault.desktop", "Name=Vault\nExec=\(try f.recorder("vault")) %u\nMimeType=x-scheme-handler/vault;\nX-SchemeBridge-AllowedCallers=org.example.Calendar;")
        try f.entry("plain.desktop", "Name=Plain\nExec=\(try f.recorder("plain")) %u\nMimeType=x-scheme-handler/plain;")
        return f
    }

    /// Starts an attacker; as `nobody` when `unprivileged` (else as the test's user, for FUSE).
    static func startAttacker(_ f: ServiceFixture, mode: String, index: Int, unprivileged: Bool, url: String) throws -> (ChildProcess, () -> String) {
        let out = f.root.appendingPathComponent("attacker-\(mode)-\(index).out")
        // A directory of its own inside one anybody may write into (removed with the fixture).
        let shared = f.root.appendingPathComponent("forgers").path
        try? FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o1777)
        let root = shared + "/\(mode)-\(index)"
        let prefix = unprivileged ? ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] : []
        let child = try Tools.spawn(prefix + [Tools.systemPython, try attacker(f), mode, root, url],
                                    environment: f.bus.clientEnvironment.merging(Clients.serviceNames) { $1 }, stdout: out, stderr: out)
        return (child, { (try? String(contentsOf: out, encoding: .utf8)) ?? "" })
    }

    /// Whether this machine lets the test's user mount FUSE in a user namespace.
    static var fuseAvailable: Bool { access("/dev/fuse", R_OK | W_OK) == 0 }

    @Test func aForgedFlatpakIdIsAClaimLikeAnyOther() async throws {
        let f = try Self.world(anyUser: true)
        defer { f.stop() }
        let (attacker, output) = try Self.startAttacker(f, mode: "file", index: 0, unprivileged: true, url: "plain://forged")
        defer { attacker.terminate() }
        #expect(await Tools.eventually { output().contains("opened") || output().contains("error") || !attacker.isRunning }, "\(output())")
        // The forger is named by what it claims, as any program of the user could be (with
        // `flatpak run --command=…`, or a systemd scope named app-flatpak-…): source says so,
        // and nothing more is made of it than of any other id.
        #expect(output().contains("opened"), "\(output())")
        #expect(await f.recordedArgv("plain") == ["plain://forged"])
        #expect(f.recordedEnv("plain").contains("source=org.example.Calendar\n"), "\(f.recordedEnv("plain"))")
    }

    /// FIFOs as `/.flatpak-info`, from unprivileged user namespaces (the issue's reproduction).
    @Test func aFIFOAsFlatpakInfoHangsNothing() async throws {
        try await hangsNothing(mode: "fifo", unprivileged: true)
    }

    /// A file system that never answers, behind `/.flatpak-info`: more attackers than the
    /// machine has cores (each used to hold one of the shared task threads for good).
    @Test(.enabled(if: ForgedFlatpakTests.fuseAvailable, "needs /dev/fuse"))
    func aFileSystemThatNeverAnswersHangsNothing() async throws {
        try await hangsNothing(mode: "fuse", unprivileged: false)
    }

    func hangsNothing(mode: String, unprivileged: Bool) async throws {
        let f = try Self.world(anyUser: unprivileged)
        defer { f.stop() }
        let warm = try await f.dbusSend("OpenURL", "string:plain://warm")
        #expect(warm.status == 0, "\(warm.stderr)")
        let count = min(ProcessInfo.processInfo.activeProcessorCount + 1, 8)
        var attackers: [(ChildProcess, () -> String)] = []
        defer { for (a, _) in attackers { a.terminate() } }
        for i in 0..<count {
            attackers.append(try Self.startAttacker(f, mode: mode, index: i, unprivileged: unprivileged, url: "vault://\(mode)-\(i)"))
        }
        for (a, output) in attackers {
            #expect(await Tools.eventually { output().contains("ready") || !a.isRunning }, "\(output())")
            #expect(output().contains("ready"), "\(output())")
        }
        // Every attacker's call ends: unidentified, so the vault refuses it.
        for (_, output) in attackers {
            #expect(await Tools.eventually { output().contains("error") || output().contains("opened") }, "\(output())")
            #expect(output().contains(ContractError.accessDenied.description), "\(output())")
        }
        // Everybody else is served as before, while the attackers still hold their files…
        let after = try await f.dbusSend("OpenURL", "string:plain://after")
        #expect(after.status == 0, "\(after.stderr)")
        #expect(await Tools.eventually { await f.recordedArgv("plain") == ["plain://after"] })
        // …and SIGTERM still stops the service.
        let service = try #require(await f.servicePID())
        kill(service, SIGTERM)
        #expect(await Tools.eventually { kill(service, 0) != 0 || Self.isZombie(service) }, "the service did not stop on SIGTERM")
    }

    static func isZombie(_ pid: Int32) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
