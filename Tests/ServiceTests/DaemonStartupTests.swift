import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// schemebridged's start-up: its command line, and the registry index it keeps between runs.
@Suite struct DaemonStartupTests {
    /// One run of the daemon on the fixture's tree, as a session would start it; returns its log
    /// once it answered `CanOpenURL` for `probe` as expected, `then` ran, and it was stopped with SIGTERM.
    func run(_ f: ServiceFixture, probe: [String: Bool], then: (ServiceFixture) async throws -> Void = { _ in }) async throws -> String {
        let log = f.root.appendingPathComponent("daemon-\(UUID().uuidString.prefix(6)).log")
        let env = [
            "XDG_DATA_HOME": f.dataHome.path,
            "XDG_DATA_DIRS": f.systemData.path,
            "XDG_CONFIG_HOME": f.configHome.path,
            "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path,
            "HOME": f.root.path,
            "XDG_CACHE_HOME": f.root.appendingPathComponent("cache").path,
        ]
        let daemon = try Tools.spawn([try Built.executable("schemebridged"), "--address", f.bus.address], environment: env, stderr: log)
        // Waits for the name (a method call now would start a second daemon by bus activation).
        let up = await Tools.eventually(timeout: .seconds(20)) {
            let r = try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:\(ServiceFixture.name)"])
            return r?.stdout.contains("boolean true") == true
        }
        #expect(up, "the daemon did not answer")
        for (scheme, expected) in probe {
            let reply = try await f.dbusSend("CanOpenURL", "string:\(scheme):x")
            #expect(reply.stdout.contains("boolean \(expected)"), "\(scheme): \(reply.stdout)\(reply.stderr)")
        }
        try await then(f)
        daemon.signal(SIGTERM)
        let status = await daemon.wait()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(status == 0, "\(text)")
        return text
    }

    /// Started with no address but `XDG_RUNTIME_DIR` (its `bus` the session's socket), as a shell
    /// or a service manager that sets no `DBUS_SESSION_BUS_ADDRESS` starts it, the daemon serves
    /// on that bus, as the CLI finds it there (it found none before, and exited).
    @Test func servesOnTheBusAtXDGRuntimeDirWhenNoAddressIsSet() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        let runtime = f.root.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: runtime.appendingPathComponent("bus").path,
                                                   withDestinationPath: f.bus.directory.appendingPathComponent("bus").path)
        let log = f.root.appendingPathComponent("daemon-runtime.log")
        let env = [
            "XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path, "XDG_CONFIG_HOME": f.configHome.path,
            "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path, "HOME": f.root.path,
            "XDG_CACHE_HOME": f.root.appendingPathComponent("cache").path,
            "XDG_RUNTIME_DIR": runtime.path, "DBUS_SESSION_BUS_ADDRESS": "", "DBUS_STARTER_ADDRESS": "",
        ]
        let daemon = try Tools.spawn([try Built.executable("schemebridged")], environment: env, stderr: log)
        defer { daemon.terminate() }
        // The name owned (a method call now would start a second daemon by bus activation), or the
        // daemon gone: then it found no bus.
        let up = await Tools.eventually {
            guard daemon.isRunning else { return true }
            let r = try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:\(ServiceFixture.name)"])
            return r?.stdout.contains("boolean true") == true
        }
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        #expect(up && daemon.isRunning, "the daemon did not take its name on the bus at $XDG_RUNTIME_DIR/bus:\n\(text())")
        let reply = try await f.dbusSend("CanOpenURL", "string:good:x")
        #expect(reply.stdout.contains("boolean true"), "\(reply.stdout)\(reply.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "\(text())")
    }

    /// A second `schemebridged --replace` takes the name over: the first says so, closes its
    /// connection and exits (0, a clean end), and the second answers under the name.
    @Test func aReplacingDaemonTakesTheNameOverAndTheFirstExits() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        let env = [
            "XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path, "XDG_CONFIG_HOME": f.configHome.path,
            "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path, "HOME": f.root.path,
            "XDG_CACHE_HOME": f.root.appendingPathComponent("cache").path,
        ]
        let owner = { () async -> String in
            (try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:\(ServiceFixture.name)"]))?.stdout ?? ""
        }
        let (firstLog, secondLog) = (f.root.appendingPathComponent("daemon-first.log"), f.root.appendingPathComponent("daemon-second.log"))
        let text = { (log: URL) in (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        let first = try Tools.spawn([try Built.executable("schemebridged"), "--address", f.bus.address], environment: env, stderr: firstLog)
        defer { first.terminate() }
        #expect(await Tools.eventually(timeout: .seconds(20)) { await owner().contains("uint32 \(first.pid)") }, "\(text(firstLog))")
        let second = try Tools.spawn([try Built.executable("schemebridged"), "--address", f.bus.address, "--replace"], environment: env, stderr: secondLog)
        defer { second.terminate() }
        let exited = await Tools.eventually(timeout: .seconds(30)) { !first.isRunning }
        #expect(exited, "the first daemon still runs:\n\(text(firstLog))")
        if exited { #expect(await first.wait() == 0, "\(text(firstLog))") }
        #expect(text(firstLog).contains("was taken over by another process; exiting"), "\(text(firstLog))")
        #expect(await Tools.eventually(timeout: .seconds(20)) { await owner().contains("uint32 \(second.pid)") }, "\(text(secondLog))")
        let reply = try await f.dbusSend("CanOpenURL", "string:good:x")
        #expect(reply.stdout.contains("boolean true"), "\(reply.stdout)\(reply.stderr)")
        second.signal(SIGTERM)
        #expect(await second.wait() == 0, "\(text(secondLog))")
    }

    /// libcurl — and the ~35 libraries it needs (OpenSSL, GnuTLS, Kerberos, LDAP, SSH…) — is
    /// loaded when the first app link is fetched, not at start: a service that has answered its
    /// first call with no host to verify has not mapped it (issue 36: linked, it was loaded and
    /// relocated before every first answer, ~3–4 MiB of the resident size).
    @Test func libcurlIsLoadedOnlyToFetch() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;")
        let log = f.root.appendingPathComponent("daemon-curl.log")
        let env = [
            "XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path, "XDG_CONFIG_HOME": f.configHome.path,
            "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path, "HOME": f.root.path,
            "XDG_CACHE_HOME": f.root.appendingPathComponent("cache").path,
        ]
        let daemon = try Tools.spawn([try Built.executable("schemebridged"), "--address", f.bus.address], environment: env, stderr: log)
        defer { daemon.terminate() }
        let up = await Tools.eventually(timeout: .seconds(20)) {
            let r = try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:\(ServiceFixture.name)"])
            return r?.stdout.contains("boolean true") == true
        }
        #expect(up, "the daemon did not answer")
        let reply = try await f.dbusSend("CanOpenURL", "string:good:x")
        #expect(reply.stdout.contains("boolean true"), "\(reply.stdout)\(reply.stderr)")
        let maps = try await Tools.run(["cat", "/proc/\(daemon.pid)/maps"]).stdout  // read whole (procfs says size 0)
        #expect(maps.contains("libdbus-1"), "not the daemon's maps")
        #expect(!maps.contains("libcurl"), "libcurl is mapped at start")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    var indexFiles: (ServiceFixture) -> [URL] = { f in
        let dir = f.root.appendingPathComponent("cache/schemebridge")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
            .filter { $0.hasSuffix(".index") }.map { dir.appendingPathComponent($0) }
    }

    @Test func theNextStartAnswersWhatTheFilesSay() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=/bin/true %u\nMimeType=x-scheme-handler/first;")
        try f.entry("b.desktop", "Name=B\nExec=/bin/true %u\nMimeType=x-scheme-handler/gone;", system: true)
        usleep(250_000)
        _ = try await run(f, probe: ["first": true, "gone": true, "later": false])
        #expect(indexFiles(f).count == 1)

        // Between two runs: one entry added, one removed, one edited.
        try f.entry("c.desktop", "Name=C\nExec=/bin/true %u\nMimeType=x-scheme-handler/later;", system: true)
        try FileManager.default.removeItem(at: f.root.appendingPathComponent("sysdata/applications/b.desktop"))
        try f.entry("a.desktop", "Name=A\nExec=/bin/true %u\nMimeType=x-scheme-handler/first;x-scheme-handler/more;")
        let second = try await run(f, probe: ["first": true, "gone": false, "later": true, "more": true])
        #expect(!second.contains("registry index not used"), "\(second)")

        // A damaged index: the service scans, says so once, and answers the same.
        let index = try #require(indexFiles(f).first)
        var bytes = try Data(contentsOf: index)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: index)
        let third = try await run(f, probe: ["first": true, "gone": false, "later": true, "more": true])
        #expect(third.components(separatedBy: "registry index not used").count == 2, "\(third)")
    }

    /// Served from the index (a second start), an `OpenURL` whose handler's entry lies in a
    /// protected directory is admitted and spawned on the D-Bus loop thread (issue 36): it counts
    /// against the launch rate as every launch, and a program that cannot start is `LaunchFailed`
    /// to the caller and `URLFailed` to the session. An entry of the user's opens too.
    @Test func opensServedFromTheIndexAreLimitedAndReportAFailedStart() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let notAProgram = f.bin.appendingPathComponent("not-a-program").path
        try "no interpreter line, so exec refuses it\n".write(toFile: notAProgram, atomically: true, encoding: .utf8)
        chmod(notAProgram, 0o755)
        try f.entry("good.desktop", "Name=Good\nExec=\(try f.recorder("good")) %u\nMimeType=x-scheme-handler/good;", system: true)
        try f.entry("broken.desktop", "Name=Broken\nExec=\(notAProgram) %u\nMimeType=x-scheme-handler/broken;", system: true)
        try f.entry("mine.desktop", "Name=Mine\nExec=\(try f.recorder("mine")) %u\nMimeType=x-scheme-handler/mine;")
        try f.writeConfig("[Policy]\nMaxLaunchRate=0.001\nLaunchBurst=3\nUnidentifiedLaunchRate=0.001\nUnidentifiedLaunchBurst=3\n")
        usleep(250_000)
        // Two runs write the index: the second vouches for files the first found "racy" (docs/REGISTRY.md).
        _ = try await run(f, probe: ["good": true])
        _ = try await run(f, probe: ["good": true])
        #expect(indexFiles(f).count == 1)
        let second = try await run(f, probe: ["good": true, "mine": true]) { f in
            let log = f.root.appendingPathComponent("failed.log")
            let monitor = try Tools.spawn(["dbus-monitor", "--address", f.bus.address,
                                           "type='signal',interface='\(ServiceFixture.interface)',member='URLFailed'"], stdout: log)
            defer { monitor.signal(SIGTERM) }
            let failures = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
            #expect(await Tools.eventually { failures().contains("member=NameLost") }, "dbus-monitor never started")
            let good = try await f.dbusSend("OpenURL", "string:good://one")
            #expect(good.stdout.contains("boolean true"), "\(good.stderr)")
            #expect(await f.recordedArgv("good") == ["good://one"])
            let broken = try await f.dbusSend("OpenURL", "string:broken://x")
            #expect(broken.stderr.contains(ContractError.launchFailed.description) && broken.stderr.contains("not-a-program"), "\(broken.stdout)\(broken.stderr)")
            #expect(await Tools.eventually { failures().contains("broken://x") && failures().contains(ContractError.launchFailed.description) }, "\(failures())")
            let mine = try await f.dbusSend("OpenURL", "string:mine://x")
            #expect(mine.stdout.contains("boolean true"), "\(mine.stderr)")
            #expect(await f.recordedArgv("mine") == ["mine://x"])
            // Three launches charged (the failed one too): the fourth is over the burst.
            let limited = try await f.dbusSend("OpenURL", "string:good://two")
            #expect(limited.stderr.contains(ContractError.rateLimited.description), "\(limited.stdout)\(limited.stderr)")
            #expect(await Tools.eventually { failures().contains("good://two") }, "\(failures())")
        }
        #expect(!second.contains("registry index not used"), "\(second)")
    }

    /// Served from the index (a warm start), the first `OpenURL` whose handler is an entry in the
    /// user's folder that masks a system entry of the same ID launches the user's program — never
    /// the masked one's — and does not build the registry's model on the way (issue 36: its check
    /// read the masked entries, which built the model from every record of the index). Building
    /// it reads the whole index file again, so the kernel's count of bytes the daemon read
    /// (`rchar` in `/proc/PID/io`) across the open stays far below the index's size.
    @Test func aUserEntrysFirstOpenFromTheIndexLaunchesItWithoutBuildingTheModel() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("app.desktop", "Name=Mine\nExec=\(try f.recorder("mine")) %u\nMimeType=x-scheme-handler/mine;")
        try f.entry("app.desktop", "Name=System\nExec=\(try f.recorder("system")) %u\nMimeType=x-scheme-handler/mine;", system: true)
        for i in 0..<1500 {
            try f.entry("filler\(i).desktop", "Name=Filler \(i)\nExec=/bin/true %u\nMimeType=x-scheme-handler/filler\(i);", system: true)
        }
        usleep(250_000)
        // Two runs write the index: the second vouches for files the first found "racy".
        _ = try await run(f, probe: ["mine": true])
        _ = try await run(f, probe: ["mine": true])
        let index = try #require(indexFiles(f).first)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: index.path)[.size] as? Int)
        #expect(size > 200_000, "\(size)")
        func bytesRead(_ pid: Int32) -> Int? {
            let io = (try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)) ?? ""
            return io.split(separator: "\n").first { $0.hasPrefix("rchar:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) }
        }
        let log = try await run(f, probe: ["mine": true]) { f in
            let pid = try #require(await f.servicePID())
            let before = try #require(bytesRead(pid))
            let open = try await f.dbusSend("OpenURL", "string:mine://first")
            #expect(open.stdout.contains("boolean true"), "\(open.stderr)")
            #expect(await f.recordedArgv("mine") == ["mine://first"])
            let read = try #require(bytesRead(pid)) - before
            #expect(read < size / 4, "the open read \(read) bytes (the index is \(size)): the model was built")
        }
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("system.argv").path), "the masked entry ran")
        #expect(!log.contains("registry index not used"), "\(log)")
    }

    @Test func commandLine() async throws {
        let daemon = try Built.executable("schemebridged")
        let version = try await Tools.run([daemon, "--version"])
        #expect(version.status == 0 && version.stdout == "schemebridged \(Release.version)\nD-Bus contract version \(Contract.version) (\(Contract.busName))\n",
                "\(version.status) \(version.stdout)")
        let help = try await Tools.run([daemon, "--help"])
        #expect(help.status == 0 && help.stdout.contains("--max-launch-rate <rate>"))
        let unknown = try await Tools.run([daemon, "--bogus"])
        #expect(unknown.status == 64 && unknown.stderr.contains("Unknown option '--bogus'"))
        let bad = try await Tools.run([daemon, "--log-level", "loud"])
        #expect(bad.status == 64 && bad.stderr.contains("invalid for '--log-level <level>'"))
        let missing = try await Tools.run([daemon, "--address"])
        #expect(missing.status == 64 && missing.stderr.contains("Missing value"))
    }
}
