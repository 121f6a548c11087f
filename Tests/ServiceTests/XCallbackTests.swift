import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// x-callback-url through SchemeBridge: callbacks are checked against the caller's own entry,
/// `x-source` is the caller's verified id, and a callback the handler opens goes back to the
/// caller's entry — never to a third app that declares the same scheme.
@Suite struct XCallbackTests {
    /// The caller is a python3 program; its system entry runs python3 too (so python callers are
    /// this app) and records the URL it is started with.
    static func installCaller(_ f: ServiceFixture) throws -> String {
        let python = (try? FileManager.default.destinationOfSymbolicLink(atPath: Tools.systemPython)).map { "/usr/bin/" + $0 } ?? Tools.systemPython
        let recorder = f.root.appendingPathComponent("caller-record.py").path
        try "import os, sys\nopen('\(f.records.path)/caller.url.tmp', 'w').write(sys.argv[1])\nos.rename('\(f.records.path)/caller.url.tmp', '\(f.records.path)/caller.url')\n".write(toFile: recorder, atomically: true, encoding: .utf8)
        try f.entry("org.example.Caller.desktop", "Name=Caller\nExec=\(python) \(recorder) %u\nMimeType=x-scheme-handler/callerapp;", system: true)
        return python
    }

    @Test func callbacksComeBackToTheCallerOnlyWithAVerifiedSource() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        _ = try Self.installCaller(f)
        // The handler records the URL it got, then opens its x-success callback with a result.
        let cli = try Built.executable("schemebridge")
        let handler = f.bin.appendingPathComponent("do-handler").path
        try """
            #!/bin/sh
            printf '%s' "$1" > '\(f.records.path)/handler.url'
            success=$(printf '%s' "$1" | sed -n 's/.*x-success=\\([^&]*\\).*/\\1/p' | sed 's/%3A/:/g; s/%2F/\\//g')
            exec '\(cli)' open "$success?result=ok"
            """.write(toFile: handler, atomically: true, encoding: .utf8)
        chmod(handler, 0o755)
        try f.entry("org.example.Handler.desktop", "Name=Handler\nExec=\(handler) %u\nMimeType=x-scheme-handler/handler;", system: true)
        // Two would-be hijackers of the callback scheme: one in the user's data dir, one in a
        // system dir that the user even made the default for it.
        try f.entry("thief.desktop", "Name=Thief\nExec=\(try f.recorder("thief")) %u\nMimeType=x-scheme-handler/callerapp;")
        try f.entry("system-thief.desktop", "Name=System Thief\nExec=\(try f.recorder("systhief")) %u\nMimeType=x-scheme-handler/callerapp;", system: true)
        try "[Default Applications]\nx-scheme-handler/callerapp=system-thief.desktop\n"
            .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        let script = """
            import sys, dbus
            \(ServiceFixture.pythonNames)
            svc = dbus.Interface(dbus.bus.BusConnection(sys.argv[1]).get_object(N, O), N)
            print(bool(svc.OpenURL('handler://do?x-success=callerapp%3A%2F%2Fdone&x-source=forged.App')))
            """
        let r = try await Tools.run([Tools.systemPython, "-c", script, f.bus.address])
        #expect(r.stdout.hasPrefix("True"), "\(r.stdout)\(r.stderr)")
        let callerURL = f.records.appendingPathComponent("caller.url")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: callerURL.path) }, "the callback never came back")
        #expect((try? String(contentsOf: callerURL, encoding: .utf8)) == "callerapp://done?result=ok")
        let got = (try? String(contentsOf: f.records.appendingPathComponent("handler.url"), encoding: .utf8)) ?? ""
        #expect(got.contains("x-source=org.example.Caller") && !got.contains("forged"), "x-source is the verified caller: \(got)")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("thief.argv").path))
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("systhief.argv").path))
        // Without a callback route the scheme goes to its default as usual: the pin was one-shot.
        _ = try await f.dbusSend("OpenURL", "string:callerapp://plain")
        #expect(await f.recordedArgv("systhief") == ["callerapp://plain"])
    }

    @Test func aCallbackSchemeTheCallerDoesNotOwnIsRefused() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        _ = try Self.installCaller(f)
        try f.entry("handler.desktop", "Name=Handler\nExec=\(try f.recorder("handler")) %u\nMimeType=x-scheme-handler/handler;", system: true)
        let script = """
            import sys, dbus
            \(ServiceFixture.pythonNames)
            svc = dbus.Interface(dbus.bus.BusConnection(sys.argv[1]).get_object(N, O), N)
            try:
                svc.OpenURL('handler://do?x-error=otherapp://failed'); print('opened')
            except dbus.DBusException as e:
                print(e.get_dbus_name()); print(str(e))
            """
        let r = try await Tools.run([Tools.systemPython, "-c", script, f.bus.address])
        #expect(r.stdout.hasPrefix(ContractError.callbackNotOwned.description), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("MimeType=x-scheme-handler/otherapp"), "the message says how to declare it: \(r.stdout)")
        // An unidentified caller (no entry runs dbus-send) owns no callback scheme at all.
        let anonymous = try await f.dbusSend("OpenURL", "string:handler://do?x-success=callerapp://x")
        #expect(anonymous.stderr.contains(ContractError.callbackNotOwned.description), "\(anonymous.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("handler.argv").path), "nothing was launched")
    }
}
