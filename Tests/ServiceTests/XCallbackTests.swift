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
    /// this app) and records the URL it is started with (`Clients/XCallback/record-url.py`).
    static func installCaller(_ f: ServiceFixture) throws -> String {
        // Its own program (python under a name of its own): a script run by the system's python
        // is python, which every script shares (issue 37), never an app's entry.
        let python = try f.pythonNamed("caller-app")
        let recorder = Clients.path("XCallback/record-url")
        try f.entry("org.example.Caller.desktop", "Name=Caller\nExec=\(python) \(recorder) \(f.records.path) %u\nMimeType=x-scheme-handler/callerapp;", system: true)
        return python
    }

    /// `XCallback/open-url` run by the caller's own program (``installCaller(_:)``).
    static func callerCommand(_ f: ServiceFixture, _ arguments: [String]) throws -> [String] {
        [try f.pythonNamed("caller-app")] + Clients.command("XCallback/open-url", arguments).dropFirst()
    }

    /// The handler `org.example.Handler.desktop` (scheme `handler`): runs `first` (shell), then
    /// opens its x-success callback with `?result=<result>` through our CLI (`open --ask` with `ask`).
    static func installHandler(_ f: ServiceFixture, first: String, result: String, ask: Bool = false) throws {
        let cli = try Built.executable("schemebridge")
        let handler = f.bin.appendingPathComponent("do-handler").path
        try """
            #!/bin/sh
            \(first)
            success=$(printf '%s' "$1" | sed -n 's/.*x-success=\\([^&]*\\).*/\\1/p' | sed 's/%3A/:/g; s/%2F/\\//g')
            exec '\(cli)' open \(ask ? "--ask " : "")"$success?result=\(result)"
            """.write(toFile: handler, atomically: true, encoding: .utf8)
        chmod(handler, 0o755)
        try f.entry("org.example.Handler.desktop", "Name=Handler\nExec=\(handler) %u\nMimeType=x-scheme-handler/handler;", system: true)
    }

    /// The caller (python3, `org.example.Caller`) opens `handler://do` with its x-success callback
    /// (and `activationToken` when given).
    static func callerOpensHandlerWithCallback(_ f: ServiceFixture, activationToken: String? = nil) async throws -> ProcessResult {
        return try await Tools.run(try Self.callerCommand(f, [f.bus.address, "handler://do?x-success=callerapp%3A%2F%2Fdone"] + (activationToken.map { [$0] } ?? [])),
                                   environment: Clients.serviceNames)
    }

    @Test func callbacksComeBackToTheCallerOnlyWithAVerifiedSource() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        _ = try Self.installCaller(f)
        // The handler records the URL it got, then opens its x-success callback with a result.
        try Self.installHandler(f, first: "printf '%s' \"$1\" > '\(f.records.path)/handler.url'", result: "ok")
        // Two would-be hijackers of the callback scheme: one in the user's data dir, one in a
        // system dir that the user even made the default for it.
        try f.entry("thief.desktop", "Name=Thief\nExec=\(try f.recorder("thief")) %u\nMimeType=x-scheme-handler/callerapp;")
        try f.entry("system-thief.desktop", "Name=System Thief\nExec=\(try f.recorder("systhief")) %u\nMimeType=x-scheme-handler/callerapp;", system: true)
        try "[Default Applications]\nx-scheme-handler/callerapp=system-thief.desktop\n"
            .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        let r = try await Tools.run(try Self.callerCommand(f, [f.bus.address, "handler://do?x-success=callerapp%3A%2F%2Fdone&x-source=forged.App"]), environment: Clients.serviceNames)
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
        let r = try await Tools.run(try Self.callerCommand(f, [f.bus.address, "handler://do?x-error=otherapp://failed"]), environment: Clients.serviceNames)
        #expect(r.stdout.hasPrefix(ContractError.callbackNotOwned.description), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("MimeType=x-scheme-handler/otherapp"), "the message says how to declare it: \(r.stdout)")
        // An unidentified caller (no entry runs dbus-send) owns no callback scheme at all.
        let anonymous = try await f.dbusSend("OpenURL", "string:handler://do?x-success=callerapp://x")
        #expect(anonymous.stderr.contains(ContractError.callbackNotOwned.description), "\(anonymous.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("handler.argv").path), "nothing was launched")
    }
    /// The handler opens its x-success callback with `ask` (`schemebridge open --ask`): the pinned
    /// route decides before any chooser (named > pinned callback > remembered > route > ask >
    /// default). No chooser is shown — one that would pick the scheme's default, a third app, with
    /// "always" — and the callback reaches the caller's own entry.
    @Test func aCallbackOpenedWithAskGoesBackWithoutAChooser() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        _ = try Self.installCaller(f)
        try Self.installHandler(f, first: "", result: "asked", ask: true)
        try f.entry("system-thief.desktop", "Name=System Thief\nExec=\(try f.recorder("systhief")) %u\nMimeType=x-scheme-handler/callerapp;", system: true)
        try "[Default Applications]\nx-scheme-handler/callerapp=system-thief.desktop\n"
            .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("picker", "printf 'system-thief.desktop\\talways\\n'"))\n")
        let r = try await Self.callerOpensHandlerWithCallback(f)
        #expect(r.stdout.hasPrefix("True"), "\(r.stdout)\(r.stderr)")
        let callerURL = f.records.appendingPathComponent("caller.url")
        let thief = f.records.appendingPathComponent("systhief.argv").path
        #expect(await Tools.eventually {
            FileManager.default.fileExists(atPath: callerURL.path) || FileManager.default.fileExists(atPath: thief)
        }, "the callback never came back")
        #expect((try? String(contentsOf: callerURL, encoding: .utf8)) == "callerapp://done?result=asked")
        #expect(!FileManager.default.fileExists(atPath: thief), "the chooser's pick got the callback")
        #expect(f.chooserRuns("picker") == 0, "a chooser was shown for a pinned callback: \(f.chooserSaw("picker"))")
    }

    /// The attack of issue 21: a program that sees the handler start (URLHandled; the callback URL
    /// is in the handler's command line anyway) opens the bare callback URL first. It must not use
    /// up the route, nor get the scheme looked up: the handler's real callback, with its secret,
    /// still goes to the caller's entry — never to a third app declaring the scheme (here even
    /// the user's default for it).
    @Test func aStrangerOpeningTheCallbackFirstIsRefusedAndTheSecretStillReachesTheCaller() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        _ = try Self.installCaller(f)
        // The handler waits (until the test lets it go) before it opens its x-success callback.
        try Self.installHandler(f, first: f.gate.shellWait("callback"), result: "SECRET")
        try f.entry("system-thief.desktop", "Name=System Thief\nExec=\(try f.recorder("systhief")) %u\nMimeType=x-scheme-handler/callerapp;", system: true)
        try "[Default Applications]\nx-scheme-handler/callerapp=system-thief.desktop\n"
            .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        // The stranger: the moment it sees the handler's URLHandled, it opens the callback URL.
        let ready = f.records.appendingPathComponent("stranger.ready").path
        let outcome = f.records.appendingPathComponent("stranger.out").path
        let stranger = try Tools.spawn(Clients.command("XCallback/stranger", [f.bus.address, ready, outcome]), environment: Clients.serviceNames)
        defer { stranger.terminate() }
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: ready) }, "the stranger never listened")
        let r = try await Self.callerOpensHandlerWithCallback(f)
        #expect(r.stdout.hasPrefix("True"), "\(r.stdout)\(r.stderr)")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: outcome) }, "the stranger never saw the handler start")
        let strangers = (try? String(contentsOfFile: outcome, encoding: .utf8)) ?? ""
        #expect(strangers.hasPrefix(ContractError.notTheHandler.description), "the stranger's open: \(strangers)")
        #expect(strangers.contains("only that handler"), "the refusal says why: \(strangers)")
        // Now the real handler answers: its secret reaches the caller's own entry.
        f.release("callback")
        let callerURL = f.records.appendingPathComponent("caller.url")
        let thief = f.records.appendingPathComponent("systhief.argv").path
        let secret = "callerapp://done?result=SECRET"
        #expect(await Tools.eventually {
            (try? String(contentsOf: callerURL, encoding: .utf8)) == secret || FileManager.default.fileExists(atPath: thief)
        }, "the callback never came back")
        #expect((try? String(contentsOf: callerURL, encoding: .utf8)) == secret)
        let stolen = (try? String(contentsOfFile: thief, encoding: .utf8)) ?? ""
        #expect(stolen.isEmpty, "the default for the scheme got the callback: \(stolen)")
    }
}
