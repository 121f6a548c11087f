import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Identity by `Exec` (issue 12, item 9): the installed entry whose `Exec` runs a caller's
/// program names the caller — through symlinks, but never when the entry is one the user's
/// programs could have written and the program is a system program; and only callers that
/// call us are identified at all.
@Suite struct ExecIdentityTests {
    /// A vault that admits the given callers only.
    static func vault(_ f: ServiceFixture, admits callers: String) throws {
        try f.entry("vault.desktop", "Name=Vault\nExec=\(try f.recorder("vault")) %u\nMimeType=x-scheme-handler/vault;\nX-SchemeBridge-AllowedCallers=\(callers);")
    }

    @Test func anEntryWhoseExecIsASymlinkNamesItsCaller() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try Self.vault(f, admits: "org.example.Tool")
        // The app's program is a symlink to a versioned file (as python3 → python3.11).
        let versioned = f.bin.appendingPathComponent("dbus-tool-1.14").path
        try FileManager.default.copyItem(atPath: "/usr/bin/dbus-send", toPath: versioned)
        let link = f.bin.appendingPathComponent("dbus-tool").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "dbus-tool-1.14")
        try f.entry("org.example.Tool.desktop", "Name=Tool\nExec=\(link) %u\n")
        let r = try await Tools.run([link, "--bus=\(f.bus.address)", "--print-reply", "--dest=\(ServiceFixture.name)", ServiceFixture.path,
                                     "\(ServiceFixture.interface).OpenURL", "string:vault://tool"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(await f.recordedArgv("vault") == ["vault://tool"])
        #expect(f.recordedEnv("vault").contains("source=org.example.Tool\n"), "\(f.recordedEnv("vault"))")
    }

    @Test func aUserEntryCannotNameASystemProgram() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try Self.vault(f, admits: "org.example.Evil;org.example.Gdbus")
        // Any program of the user can drop this into ~/.local/share/applications…
        try f.entry("org.example.Evil.desktop", "Name=Evil\nExec=/usr/bin/dbus-send %u\n")
        let denied = try await f.dbusSend("OpenURL", "string:vault://dbus-send")
        #expect(denied.stderr.contains(ContractError.accessDenied.description) && denied.stderr.contains("the caller is /usr/bin/dbus-send"),
                "\(denied.stderr)")
        #expect(FileManager.default.fileExists(atPath: f.records.appendingPathComponent("vault.argv").path) == false)
        // …while an entry in a data dir only root can write names the system program it runs.
        // (It also declares a scheme, so the test can wait until the service has read it: the
        // registry follows the directories through inotify, asynchronously.)
        try f.entry("org.example.Gdbus.desktop", "Name=Gdbus\nExec=/usr/bin/gdbus %u\nMimeType=x-scheme-handler/gdbusprobe;\n", system: true)
        let seen = await Tools.eventually { (try? await f.dbusSend("CanOpenURL", "string:gdbusprobe://x"))?.stdout.contains("boolean true") == true }
        try #require(seen, "the service never saw org.example.Gdbus.desktop")
        let allowed = try await f.gdbus("OpenURL", "vault://gdbus")
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(await f.recordedArgv("vault") == ["vault://gdbus"])
        #expect(f.recordedEnv("vault").contains("source=org.example.Gdbus\n"), "\(f.recordedEnv("vault"))")
    }

    /// A program that connects to the bus and never calls us is never looked at: its
    /// `/.flatpak-info` is a FIFO whose writer waits for a reader, and nobody ever opens it.
    @Test func aConnectionThatNeverCallsIsNeverIdentified() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("plain.desktop", "Name=Plain\nExec=\(try f.recorder("plain")) %u\nMimeType=x-scheme-handler/plain;")
        let warm = try await f.dbusSend("CanOpenURL", "string:plain://warm")
        #expect(warm.stdout.contains("boolean true"), "\(warm.stderr)")
        // Each bystander (`Clients/ExecIdentity/bystander.py`) enters a user and mount namespace,
        // chroots into a directory with a FIFO as /.flatpak-info and the bus socket bound in,
        // connects from there, and reports when someone opens the FIFO.
        let busDirectory = f.bus.directory.path
        var bystanders: [(ChildProcess, URL)] = []
        defer { for (b, _) in bystanders { b.terminate() } }
        for i in 0..<8 {
            let out = f.root.appendingPathComponent("bystander-\(i).out")
            let root = f.root.appendingPathComponent("bystander-\(i)").path
            bystanders.append((try Tools.spawn(Clients.command("ExecIdentity/bystander", [root, busDirectory]), stdout: out, stderr: out), out))
        }
        let output = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        for (b, out) in bystanders {
            #expect(await Tools.eventually { output(out).contains("connected") || !b.isRunning }, "\(output(out))")
        }
        // Callers after them are identified (a launch needs it) and served…
        for i in 0..<3 {
            let r = try await f.dbusSend("OpenURL", "string:plain://after-\(i)")
            #expect(r.status == 0, "\(r.stderr)")
            #expect(await Tools.eventually { await f.recordedArgv("plain") == ["plain://after-\(i)"] })
        }
        // …and nobody looked at the bystanders.
        for (_, out) in bystanders {
            #expect(output(out).contains("connected") && !output(out).contains("looked at"), "\(output(out))")
        }
    }
}
