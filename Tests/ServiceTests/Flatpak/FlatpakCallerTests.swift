import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 26, item 1: Flatpak apps as callers, run for real with `flatpak run` (bubblewrap and
/// xdg-dbus-proxy) against the test's private bus. The service sees the app's xdg-dbus-proxy,
/// whose `/proc/PID/root/.flatpak-info` names the app: the caller is its Flatpak id, sandboxed.
@Suite struct FlatpakCallerTests {
    /// A fixture with an unsandboxed recorder handling `plain:`.
    static func world() async throws -> FlatpakFixture {
        let w = try await FlatpakFixture()
        try w.service.entry("plain.desktop", "Name=Plain\nExec=\(try w.service.recorder("plain")) %u\nMimeType=x-scheme-handler/plain;text/plain;")
        return w
    }

    @Test func aSandboxedAppIsIdentifiedByItsFlatpakIDAndOpensURLs() async throws {
        let w = try await Self.world()
        defer { w.stop() }
        let r = try await w.sandboxedCall("org.test.Caller", "OpenURL", ["plain://from-the-sandbox"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("(true,)"), "\(r.stdout)")
        #expect(await w.service.recordedArgv("plain") == ["plain://from-the-sandbox"])
        #expect(w.service.recordedEnv("plain").contains("source=org.test.Caller\n"), "\(w.service.recordedEnv("plain"))")
    }

    /// A network namespace of the host (the device suites beside make and delete them) is no
    /// mount in the fixture's namespace: bubblewrap binds /run into each sandbox and remounts every
    /// mount under it, and one the host deleted meanwhile failed `flatpak run` ("Can't bind mount
    /// /oldroot/run …: remount /newroot/run/netns/…: No such file or directory", a clean clone's CI).
    @Test func theHostsNetworkNamespacesAreNoMountsInTheSandboxesNamespace() async throws {
        let name = "sbfp\(getpid() % 100_000)"
        let added = try await Tools.run(["ip", "netns", "add", name])
        #expect(added.succeeded, "\(added.stderr)")
        let w = try await Self.world()
        defer { w.stop() }
        let mounts = try await w.inNamespace(["cat", "/proc/self/mountinfo"])
        #expect(mounts.succeeded && !mounts.stdout.contains("/run/netns"), "\(mounts.stdout)")
        let r = try await w.sandboxedCall("org.test.Caller", "OpenURL", ["plain://beside-a-netns"])
        #expect(r.status == 0, "\(r.stderr)")
        let deleted = try await Tools.run(["ip", "netns", "delete", name])
        #expect(deleted.succeeded, "\(deleted.stderr)")
    }

    /// Without `--talk-name=io.github.schemebridge.SchemeBridge1` the app's proxy refuses: the
    /// service never hears of the call.
    @Test func withoutTheTalkNameTheProxyRefuses() async throws {
        let w = try await Self.world()
        defer { w.stop() }
        let r = try await w.sandboxedCall("org.test.NoTalk", "OpenURL", ["plain://no-talk"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("org.freedesktop.DBus.Error.ServiceUnknown"), "\(r.stderr)")
        // The same call from the app that has the talk name goes through (the refusal was the proxy's).
        let allowed = try await w.sandboxedCall("org.test.Caller", "OpenURL", ["plain://talk"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(await w.service.recordedArgv("plain") == ["plain://talk"])
    }

    /// Its own pasteboards work from inside the sandbox; the host cannot see them.
    @Test func aSandboxedAppUsesItsPasteboards() async throws {
        let w = try await Self.world()
        defer { w.stop() }
        let created = try await w.sandboxedCall("org.test.Caller", "CreatePasteboard", ["", "{}"], interface: Contract.pasteboardsInterface.rawValue)
        #expect(created.status == 0, "\(created.stderr)")
        let path = try #require(created.stdout.split(separator: "'").first { $0.hasPrefix(Contract.pasteboardPathPrefix) }.map(String.init), "\(created.stdout)")
        let set = try await w.sandboxedCall("org.test.Caller", "SetItems", ["[{'text/plain': <[byte 0x68, 0x69]>}]"], interface: "io.github.schemebridge.Pasteboard1", path: path)
        #expect(set.status == 0, "\(set.stderr)")
        let read = try await w.sandboxedCall("org.test.Caller", "ReadBytes", ["0", "text/plain"], interface: "io.github.schemebridge.Pasteboard1", path: path)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("b'hi'") || read.stdout.contains("0x68, 0x69"), "\(read.stdout)")
        // Another app (the host's gdbus) does not see it.
        let other = try await Tools.run(["gdbus", "call", "--address", w.service.bus.address, "--dest", ServiceFixture.name, "--object-path", path,
                                         "--method", "io.github.schemebridge.Pasteboard1.ReadBytes", "0", "text/plain"])
        #expect(other.status != 0)
        #expect(other.stderr.contains(ContractError.noSuchPasteboard.description), "\(other.stderr)")
    }

    /// A sandboxed handler answers a reply request from inside its sandbox: its proxy counts as
    /// the launched handler, and the caller's Response carries its results.
    @Test func aSandboxedHandlerReplies() async throws {
        let w = try await Self.world()
        defer { w.stop() }
        try w.installExportedEntry("org.test.Handler")
        let r = try await ReplyTests.runCaller(w.service, "fpkh://ask")
        // The handler writes its argv after its reply's gdbus has ended (the caller's Response
        // can come first): what gdbus said is whole only then.
        let argv = await w.handlerArgv()
        let handlerSaw = await w.appRecord("org.test.Handler", "reply.out") ?? ""
        #expect(r.stdout.contains("\"code\": 0"), "\(r.stdout) \(r.stderr) \(handlerSaw)")
        #expect(r.stdout.contains("from the sandbox"), "\(r.stdout)")
        #expect(argv == ["fpkh://ask"])
    }

    /// A program that forges the handler's Flatpak id (its own `/.flatpak-info` in a user
    /// namespace) with the reply token it read cannot answer for the sandboxed handler: the
    /// forged id alone is not the handler (its proxy's pipe to the sandbox is what ties it).
    @Test func aForgedFlatpakIDCannotAnswerForTheSandboxedHandler() async throws {
        let w = try await Self.world()
        defer { w.stop() }
        try w.installExportedEntry("org.test.Handler")
        async let caller = ReplyTests.runCaller(w.service, "fpkh://hold")
        let env = await w.appRecord("org.test.Handler", "holding").flatMap { _ in try? String(contentsOf: w.service.root.appendingPathComponent(".var/app/org.test.Handler/data/env"), encoding: .utf8) } ?? ""
        let token = try #require(env.split(separator: "\n").first { $0.hasPrefix("reply-token=") }.map { String($0.dropFirst("reply-token=".count)) }, "\(env)")
        #expect(!token.isEmpty)
        let forged = try await Tools.run(Clients.command("Flatpak/forged-reply", [w.service.bus.address, w.service.root.appendingPathComponent("forger").path,
                                                                                 "org.test.Handler", token]), environment: Clients.serviceNames)
        #expect(forged.stdout.contains("error " + ContractError.notTheHandler.description), "\(forged.stdout)\(forged.stderr)")
        // The real handler answers afterwards, and that is what the caller gets.
        _ = FileManager.default.createFile(atPath: w.service.root.appendingPathComponent(".var/app/org.test.Handler/data/release").path, contents: Data())
        let r = try await caller
        #expect(r.stdout.contains("\"code\": 0") && r.stdout.contains("from the sandbox") && !r.stdout.contains("forged"), "\(r.stdout)\(r.stderr)")
    }

    /// What a sandboxed caller may learn (README Security, docs/CONTRACT.md "Version 3: Flatpak
    /// apps"): no other apps' handlers or choices, no routes, no defaults or integration changed;
    /// the same calls from outside the sandbox answer in full.
    @Test func aSandboxedCallerCannotListOtherApps() async throws {
        let w = try await Self.world()
        defer { w.stop() }
        let dir = w.service.configHome.appendingPathComponent("schemebridge")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try "[org.test.Caller]\nplain=plain.desktop\n\n[org.example.Other]\nplain=plain.desktop\n"
            .write(to: dir.appendingPathComponent("choices"), atomically: true, encoding: .utf8)
        try w.service.writeConfig("[Routes]\nplain from org.example.*=plain.desktop\n")
        func sandboxed(_ method: String, _ args: String...) async throws -> ProcessResult { try await w.sandboxedCall("org.test.Caller", method, args) }

        #expect(try await w.service.gdbus("HandlersForScheme", "plain").stdout.contains("plain.desktop"), "outside, the handlers are listed")
        #expect(try await sandboxed("HandlersForScheme", "plain").stdout.contains("(@as [],)"))
        #expect(try await sandboxed("DefaultHandler", "plain").stdout.contains("('',)"))
        #expect(try await sandboxed("CanOpenURL", "plain://x").stdout.contains("(false,)"))
        #expect(try await w.service.gdbus("HandlersForType", "text/plain").stdout.contains("plain.desktop"))
        #expect(try await sandboxed("HandlersForType", "text/plain").stdout.contains("(@as [],)"))
        #expect(try await sandboxed("DefaultHandlerForType", "text/plain").stdout.contains("('',)"))
        let outside = try await w.service.gdbus("Choices").stdout
        #expect(outside.contains("org.example.Other") && outside.contains("org.test.Caller"), "\(outside)")
        let inside = try await sandboxed("Choices")
        #expect(inside.stdout.contains("('org.test.Caller', 'plain', 'plain.desktop')") && !inside.stdout.contains("org.example.Other"), "\(inside.stdout) \(inside.stderr)")
        let denied = ContractError.accessDenied.description
        for (method, args) in [("Routes", [String]()), ("SetDefaultHandler", ["plain", "plain.desktop"]), ("SetDefaultHandlerForType", ["text/plain", "plain.desktop"]),
                               ("ForgetChoice", ["org.example.Other", "plain"]), ("EnableIntegration", ["[]"]), ("DisableIntegration", ["[]"]),
                               ("IntegrationStatus", [])] {
            let r = try await w.sandboxedCall("org.test.Caller", method, args)
            #expect(r.status != 0 && r.stderr.contains(denied), "\(method): \(r.stdout) \(r.stderr)")
        }
        #expect(try await w.service.gdbus("Choices").stdout.contains("org.example.Other"), "another app's choice is still there")
        // Its own choice it may forget.
        #expect(try await sandboxed("ForgetChoice", "org.test.Caller", "plain").status == 0)
        #expect(!(try await w.service.gdbus("Choices").stdout.contains("org.test.Caller")))
        #expect(try await w.service.gdbus("Routes").stdout.contains("org.example.*"), "outside, the routes are listed")
    }
}
