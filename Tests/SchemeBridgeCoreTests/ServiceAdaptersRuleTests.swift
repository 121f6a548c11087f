import Foundation
import Glibc
import LinuxSystem
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// What moved out of the daemon's adapters (issue 36): integration's switch (``IntegrationService``),
/// who sees and forgets remembered choices, the document hand-off (``DocumentDeliverer``), the
/// per-caller limit on descriptor work (``DescriptorWork``) and the session's scale.
@Suite struct ServiceAdaptersRuleTests {
    final class Lines: Sendable {
        let lines = Mutex<[(ServiceLogLevel, String)]>([])
        var log: @Sendable (ServiceLogLevel, String) -> Void { { [self] level, line in lines.withLock { $0.append((level, line)) } } }
    }

    @Test func integrationRoutesNamedSchemesReportsThemAndGivesThemBack() async throws {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "todo.desktop", schemes: ["todolist", "notes"])
        t.entry(1, IntegrationSchemesTests.own, schemes: [])
        let lines = Lines()
        let service = IntegrationService(broker: IntegrationSchemesTests.broker(t), ownID: IntegrationSchemesTests.own, log: lines.log)
        #expect(try await service.enable(["todolist"]) == ["todolist"])
        #expect(lines.lines.withLock { $0.map(\.1) } == ["routing through SchemeBridge: todolist"])
        let status = try await service.status()
        #expect(!status.enabled && status.routed == ["todolist"] && status.notRouted == ["notes"] && status.list.hasSuffix("mimeapps.list"))
        #expect(try await service.disable(["todolist"]) == ["todolist"])
        #expect(try await service.status().routed.isEmpty)
        do {
            _ = try await service.enable(["nothing"])
            Issue.record("a scheme nobody handles was routed")
        } catch {
            #expect(error.kind == .noHandler)
        }
    }

    @Test func aFileThatCannotBeChangedIsFailedNamingIt() async throws {
        let t = XDGTree(dataDirCount: 1)
        t.entry(1, "todo.desktop", schemes: ["todolist"])
        t.entry(1, IntegrationSchemesTests.own, schemes: [])
        let service = IntegrationService(broker: IntegrationSchemesTests.broker(t), ownID: IntegrationSchemesTests.own, log: { _, _ in })
        // The list's directory is a file: nothing can be written there.
        try? FileManager.default.removeItem(atPath: t.configHome)
        t.write(t.configHome, "not a directory")
        do {
            _ = try await service.enable([])
            Issue.record("integration wrote under a file")
        } catch {
            #expect(error.kind == .failed && error.message.hasPrefix("cannot change "), "\(error.message)")
        }
    }

    @Test func aSandboxedAppSeesAndForgetsItsOwnChoicesOnly() async throws {
        let s = DecidingTests.Setup()
        s.tree.entry(1, "a.desktop", schemes: ["todo"])
        let broker = s.broker()
        try await broker.remember("a.desktop", for: "todo", caller: Caller(busName: ":1.1", id: "org.example.Mine"))
        try await broker.remember("a.desktop", for: "todo", caller: Caller(busName: ":1.2", id: "org.example.Other"))
        let sandboxed = Caller(busName: ":1.3", id: "org.example.Mine", sandboxed: true)
        #expect(broker.visibleChoices(to: sandboxed).map(\.caller) == ["org.example.Mine"])
        #expect(broker.visibleChoices(to: Caller(busName: ":1.4", id: "org.example.Host")).count == 2)
        do {
            _ = try await broker.forgetChoice(caller: "org.example.Other", subject: "todo", by: sandboxed)
            Issue.record("a sandboxed app forgot another's choice")
        } catch {
            #expect(error.kind == .accessDenied)
        }
        #expect(try await broker.forgetChoice(caller: "org.example.Mine", subject: "todo", by: sandboxed))
        #expect(broker.choices.all.map(\.caller) == ["org.example.Other"])
    }

    /// A descriptor held open while it is read.
    final class Held: HeldDescriptor {
        let fd: FileDescriptor
        init(_ path: String) throws { fd = try FileDescriptor.open(path, O_RDONLY) }
        var rawValue: Int32 { fd.rawValue }
        func withFileDescriptor<T, E: Error>(_ body: (borrowing FileDescriptor) throws(E) -> T) throws(E) -> T { try body(fd) }
    }

    /// A document portal that records what it was given.
    final class Portal: DocumentPortalPort {
        let added = Mutex<[(path: [UInt8], appID: String, permissions: [String])]>([])
        func add(path: [UInt8], appID: AppID, permissions: [String]) async throws -> String {
            added.withLock { $0.append((path, appID.text, permissions)) }
            return "abc123"
        }
        /// A document refers to a file once it was added (the real portal's `Lookup`).
        func hasDocument(path: [UInt8]) async -> Bool { added.withLock { $0.contains { $0.path == path } } }
    }

    @Test func aCopyGoesToTheInboxAndAFlatpakAppGetsItThroughThePortal() async throws {
        let s = DecidingTests.Setup()
        s.tree.entry(1, "viewer.desktop", mimeTypes: ["text/plain"])
        let flatpak = s.tree.bin + "/flatpak"
        s.tree.write(flatpak, "#!/bin/sh\nexit 0\n")
        chmod(flatpak, 0o755)
        s.tree.entry(1, "org.example.Flat.desktop", mimeTypes: ["text/plain"], exec: "\(flatpak) run org.example.Flat %f", extra: "X-Flatpak=org.example.Flat")
        let broker = s.broker()
        let source = s.tree.root + "/note.txt"
        s.tree.write(source, "hello")
        let (portal, logged) = (Portal(), Lines())
        let deliverer = DocumentDeliverer(documents: broker.documents!, descriptors: DescriptorWork(), portal: portal,
                                          log: { line in logged.log(.info, line) })
        let viewer = try #require(broker.registry.entry(id: "viewer.desktop"))
        let plain = try await deliverer.deliver(try Held(source), name: "note.txt", to: viewer, mode: .copy, key: "org.example.App",
                                                sendingApp: .caller("org.example.App"), limits: InboxLimits(inboxBytes: 1 << 20, retention: 3600))
        #expect(!plain.inPortal && plain.inboxCopy == plain.pathBytes && plain.path.hasSuffix("/note.txt"))
        #expect(try String(contentsOfFile: plain.path, encoding: .utf8) == "hello")
        plain.removeCopy()
        #expect(!FileManager.default.fileExists(atPath: plain.path))

        let flat = try #require(broker.registry.entry(id: "org.example.Flat.desktop"))
        let shared = try await deliverer.deliver(try Held(source), name: "note.txt", to: flat, mode: .copy, key: "org.example.App",
                                                 sendingApp: .caller("org.example.App"), limits: InboxLimits(inboxBytes: 1 << 20, retention: 3600))
        #expect(shared.inPortal && shared.path == DocumentHandOff.portalPath(documentID: "abc123", name: "note.txt"), "\(shared.path)")
        let added = try #require(portal.added.withLock { $0.first })
        #expect(added.appID == "org.example.Flat" && added.path == shared.inboxCopy && added.permissions == ["read"])
        #expect(logged.lines.withLock { $0.count } == 1)
        shared.removeCopy()
    }

    @Test func descriptorWorkRunsOffThePoolAndLimitsEachCaller() async throws {
        let work = DescriptorWork()
        #expect(try await work.run(for: "a") { 41 + 1 } == 42)
        final class Flags: Sendable {
            let gate = Mutex(false)
            let entered = Mutex(0)
        }
        let flags = Flags()
        let busy = (0..<DescriptorJobs.perCaller).map { _ in
            Task {
                try await work.run(for: "a") { () -> Int in
                    flags.entered.withLock { $0 += 1 }
                    while !flags.gate.withLock({ $0 }) { usleep(1000) }
                    return 0
                }
            }
        }
        #expect(await waitUntil(timeout: .seconds(20)) { flags.entered.withLock { $0 } == DescriptorJobs.perCaller } != nil)
        do {
            _ = try await work.run(for: "a") { 0 }
            Issue.record("a caller took more than its share of the threads")
        } catch let failure as ServiceFailure {
            #expect(failure.kind == .limitsExceeded)
        }
        #expect(try await work.run(for: "b") { 7 } == 7, "another caller is not held up")
        flags.gate.withLock { $0 = true }
        for t in busy { _ = try await t.value }
    }

    @Test func anExplicitScaleWins() {
        let scale = SessionScale(environment: ["GDK_SCALE": "2"], splash: SplashHelper(environment: [:], log: { _, _ in }), log: { _ in })
        #expect(scale.current == 2)
    }
}
