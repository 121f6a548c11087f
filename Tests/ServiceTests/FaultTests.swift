import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Faults: a killed service, a write that cannot happen, racing writers, bad handlers.
@Suite struct FaultTests {
    func servicePID(_ f: ServiceFixture) async throws -> UInt32? {
        let r = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:\(ServiceFixture.name)"])
        return r.stdout.split(separator: " ").last.flatMap { UInt32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    @Test func sigkilledServiceComesBackByActivationWithItsState() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        try f.entry("b.desktop", "Name=B\nExec=\(try f.recorder("b")) %u\nMimeType=x-scheme-handler/todolist;")
        _ = try await f.dbusSend("SetDefaultHandler", "string:todolist", "string:b.desktop")
        guard let first = try await servicePID(f) else { Issue.record("service not running"); return }
        kill(Int32(first), SIGKILL)
        _ = await Tools.eventually { (try? await servicePID(f)) == nil }
        let r = try await f.dbusSend("OpenURL", "string:todolist://after-kill")
        #expect(r.stdout.contains("boolean true"), "\(r.stderr)")
        let second = try await servicePID(f)
        #expect(second != nil && second != first)
        #expect(await f.recordedArgv("b") == ["todolist://after-kill"], "the default set before the kill still holds")
    }

    @Test func unwritableConfigDirIsAClearErrorAndTheOldFileStays() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("a.desktop", "Name=A\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        try f.entry("b.desktop", "Name=B\nExec=/bin/true %u\nMimeType=x-scheme-handler/todolist;")
        let list = f.configHome.appendingPathComponent("mimeapps.list")
        let original = "# mine, keep it\n[Default Applications]\nx-scheme-handler/todolist=a.desktop\ntext/plain=gedit.desktop\n"
        try original.write(to: list, atomically: true, encoding: .utf8)
        // chattr +i: not even root may create the temporary file next to it.
        let lock = try await Tools.run(["chattr", "+i", f.configHome.path])
        #expect(lock.status == 0, "chattr +i failed (needs e2fsprogs and an ext4 /tmp): \(lock.stderr)")
        let r = try await f.dbusSend("SetDefaultHandler", "string:todolist", "string:b.desktop")
        _ = try await Tools.run(["chattr", "-i", f.configHome.path])
        #expect(r.status != 0)
        #expect(r.stderr.contains("cannot write") && r.stderr.contains("left as it was"), "\(r.stderr)")
        #expect(try String(contentsOf: list, encoding: .utf8) == original)
        let d = try await f.dbusSend("DefaultHandler", "string:todolist")
        #expect(d.stdout.contains("\"a.desktop\""))
    }

    @Test func racingWritersBothLand() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        for s in 0..<8 {
            try f.entry("h\(s).desktop", "Name=H\(s)\nExec=/bin/true %u\nMimeType=x-scheme-handler/s\(s);")
        }
        _ = try await f.dbusSend("CanOpenURL", "string:s0:x")  // activate first
        async let one = Tools.run(Clients.command("Fault/set-defaults", [f.bus.address, "0", "2", "4", "6"]), environment: Clients.serviceNames)
        async let two = Tools.run(Clients.command("Fault/set-defaults", [f.bus.address, "1", "3", "5", "7"]), environment: Clients.serviceNames)
        let (r1, r2) = try await (one, two)
        #expect(r1.status == 0 && r2.status == 0, "\(r1.stderr)\(r2.stderr)")
        let text = try String(contentsOf: f.configHome.appendingPathComponent("mimeapps.list"), encoding: .utf8)
        for s in 0..<8 {
            #expect(text.contains("x-scheme-handler/s\(s)=h\(s).desktop\n"), "\(text)")
        }
    }

    @Test func hangingAndCrashingHandlersDoNotHoldTheService() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // A handler that runs until the test ends: had OpenURL waited for it, it would never reply.
        try f.entry("hang.desktop", "Name=Hang\nExec=\(try f.holdingRecorder("hang")) %u\nMimeType=x-scheme-handler/hang;")
        try f.entry("crash.desktop", "Name=Crash\nExec=/bin/sh -c \"kill -SEGV \\\\$$\" %u\nMimeType=x-scheme-handler/crash;")
        let plain = f.bin.appendingPathComponent("not-executable")
        try "#!/bin/sh\n".write(to: plain, atomically: true, encoding: .utf8)
        try f.entry("noexec.desktop", "Name=NoExec\nExec=\(plain.path) %u\nMimeType=x-scheme-handler/noexec;")
        let hang = try await f.dbusSend("OpenURL", "string:hang://x")
        #expect(hang.stdout.contains("boolean true"), "OpenURL does not wait for the app to exit: \(hang.stderr)")
        #expect(await f.recordedArgv("hang") == ["hang://x"])
        let crash = try await f.dbusSend("OpenURL", "string:crash://x")
        #expect(crash.stdout.contains("boolean true"), "it started; what it does then is its business: \(crash.stderr)")
        let noexec = try await f.dbusSend("OpenURL", "string:noexec://x")
        #expect(noexec.stderr.contains(ContractError.launchFailed.description) && noexec.stderr.contains("permission denied"), "\(noexec.stderr)")
        let still = try await f.dbusSend("CanOpenURL", "string:hang://y")
        #expect(still.stdout.contains("boolean true"))
    }
}
