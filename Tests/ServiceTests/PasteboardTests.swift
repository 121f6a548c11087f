import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Pasteboards end to end on a private bus with the real service: seed 001's editor → viewer
/// flow, who may see what, lifetime (restart, expiry) and big data by descriptor.
@Suite struct PasteboardTests {
    /// The person viewer: a desktop entry whose program is `/bin/sh` running a python3 script, so
    /// the viewer process is identified only as python (not as the entry): what lets it read is
    /// the grant to the process the broker started, not its app id. It records what it read.
    static func installViewer(_ f: ServiceFixture) throws {
        let launcher = f.bin.appendingPathComponent("person-viewer").path
        try "#!/bin/sh\nPYTHONPATH='\(try f.pasteboardModule())' SB_BUS='\(f.bus.address)' exec \(Tools.systemPython) '\(Clients.path("Pasteboard/viewer"))' \"$1\" '\(f.records.path)' 2>'\(f.records.path)/viewer.err'\n"
            .write(toFile: launcher, atomically: true, encoding: .utf8)
        chmod(launcher, 0o755)
        try f.entry("org.example.PersonViewer.desktop", "Name=Person Viewer\nExec=\(launcher) %u\nMimeType=x-scheme-handler/viewer;", system: true)
    }

    @Test func theSeedsEditorHandsAPersonToTheViewerWhichReadsAndDeletesIt() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try Self.installViewer(f)
        let editor = try f.pythonNamed("person-editor")
        let r = try await f.runClient("Pasteboard/editor", python: editor)
        #expect(r.stdout.hasPrefix("True 43 1 deleted"), "\(r.stdout)\(r.stderr)\n\(f.serviceLog)")
        let out = f.records.appendingPathComponent("viewer.out")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: out.path) })
        let read = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        #expect(read.contains("\"name\": \"Ada Lovelace\"") && read.contains("\"image\": 16392") && read.contains("\"png\": true"),
                "\(read) \(f.recordedEnv("viewer")) \((try? String(contentsOf: f.records.appendingPathComponent("viewer.err"), encoding: .utf8)) ?? "")")
        #expect(read.contains("[[\"application/x-person+json\"], [\"image/png\"]]"))
        // Deleted: nothing left on disk.
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: f.pasteboardStorage.path)) ?? []
        #expect(stored.isEmpty, "\(stored)")
    }

    @Test func anotherAppNeverLearnsAPasteboardExistsUntilGranted() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let owner = try f.pythonNamed("owner-app"), intruder = try f.pythonNamed("intruder")
        let made = try await f.runClient("Pasteboard/make-shared-notes", python: owner)
        let parts = made.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(parts.count == 2, "\(made.stdout)\(made.stderr)")
        let (path, unique) = (parts[0], parts[1])
        let denied = try await f.runClient("Pasteboard/probe", python: intruder, [unique, path])
        #expect(denied.stdout == "NoSuchPasteboard\nNoSuchPasteboard\nNoSuchPasteboard\nNoSuchPasteboard\nNoSuchPasteboard\n''\n",
                "\(denied.stdout)\(denied.stderr)")
        // dbus-send is another app too.
        let plain = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=\(ServiceFixture.name)", ServiceFixture.path,
                                         "\(Contract.pasteboardsInterface.rawValue).\(ContractMethod.findPasteboard.rawValue)", "string:shared-notes"])
        #expect(plain.stderr.contains(ContractError.noSuchPasteboard.description), "\(plain.stderr)")
        // The same name is free for the intruder: a pasteboard of its own, empty.
        let own = try await f.runClient("Pasteboard/make-own-shared-notes", python: intruder, [path])
        #expect(own.stdout == "True 0\n", "\(own.stdout)\(own.stderr)")
        // Granted by its app id (its executable here; with a `.desktop` suffix, as `handlers`
        // prints ids, the suffix is dropped), it reads; revoked, it sees nothing again.
        let grant = try await f.runClient("Pasteboard/grant", python: owner, [path, intruder + ".desktop"])
        #expect(grant.status == 0, "\(grant.stderr)")
        let reads = try await f.runClient("Pasteboard/read-granted", python: intruder, [path])
        #expect(reads.stdout == "secret notes\nAccessDenied\nAccessDenied\n", "\(reads.stdout)\(reads.stderr)")
        _ = try await f.runClient("Pasteboard/revoke", python: owner, [path, intruder])
        let again = try await f.runClient("Pasteboard/probe", python: intruder, [unique, path])
        // (The name now finds the intruder's own pasteboard.)
        #expect(again.stdout.hasPrefix("no error\nNoSuchPasteboard\nNoSuchPasteboard\nNoSuchPasteboard\n"), "\(again.stdout)\(again.stderr)")
    }

    @Test func aGrantedHandlerReadsAfterTheOwnerExited() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The handler waits on a gate, then reads with python (a child of the started process);
        // it writes what it read beside the record and renames it, so the record appears whole.
        let handler = f.bin.appendingPathComponent("late-reader").path
        try "#!/bin/sh\n\(f.gate.shellWait("late"))\nPYTHONPATH='\(try f.pasteboardModule())' SB_BUS='\(f.bus.address)' \(Tools.systemPython) '\(Clients.path("Pasteboard/late-reader"))' \"$1\" '\(f.records.path)' 2>'\(f.records.path)/late.err'\n"
            .write(toFile: handler, atomically: true, encoding: .utf8)
        chmod(handler, 0o755)
        try f.entry("org.example.Late.desktop", "Name=Late\nExec=\(handler) %u\nMimeType=x-scheme-handler/late;", system: true)
        let owner = try await f.runClient("Pasteboard/leaving-owner", python: try f.pythonNamed("leaving-owner"))
        #expect(owner.stdout == "org.example.Late.desktop\n", "\(owner.stdout)\(owner.stderr)")
        // The owner has exited (and left the bus); now the handler goes on.
        f.release("late")
        let out = f.records.appendingPathComponent("late.out")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: out.path) },
                "\((try? String(contentsOf: f.records.appendingPathComponent("late.err"), encoding: .utf8)) ?? "")")
        #expect((try? String(contentsOf: out, encoding: .utf8)) == "written before leaving")
    }

    @Test func aPersistentPasteboardSurvivesKillingTheServiceWithItsGrants() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let owner = try f.pythonNamed("keeper"), friend = try f.pythonNamed("friend")
        let made = try await f.runClient("Pasteboard/keeper", python: owner, [friend])
        try #require(made.status == 0, "\(made.stderr)")
        let pid = try #require(await f.servicePID())
        kill(pid, SIGKILL)
        #expect(await Tools.eventually { await f.servicePID() != pid })
        // The next call starts the service again by bus activation; the friend finds it by name.
        let read = try await f.runClient("Pasteboard/read-kept", python: friend)
        #expect(read.stdout == made.stdout + "survives 140000\n", "\(read.stdout)\(read.stderr)\n\(f.serviceLog)")
        #expect(await f.servicePID() != nil)
    }

    @Test func anExpiredPasteboardIsGoneWithItsStorage() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let r = try await f.runClient("Pasteboard/short-lived", python: try f.pythonNamed("short-lived"))
        #expect(r.stdout == "True\nDeleted\nNoSuchPasteboard\n", "\(r.stdout)\(r.stderr)")
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: f.pasteboardStorage.path)) ?? []
        #expect(stored.isEmpty, "storage left: \(stored)")
        #expect(await f.serviceMemfds() == 0, "the data is freed")
    }

    @Test func aGibibyteRoundTripsByDescriptorWhileTheServiceStaysSmall() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The writer is known by its executable only: those share 256 MiB unless the config says more.
        try f.writeConfig("[Pasteboards]\nMaxBytesUnidentified=2147483648\n")
        let r = try await f.runClient("Pasteboard/big-writer", python: try f.pythonNamed("big-writer"))
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "True True", "\(r.stdout)\(r.stderr)")
        #expect(lines.count > 1 && lines[1].hasPrefix("LimitsExceeded") && lines[1].contains("use Read"), "\(r.stdout)")
        let pid = try #require(await f.servicePID())
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) } ?? .max
        #expect(peak < 64 * 1024, "the service's peak RSS was \(peak) KiB")
    }

    @Test func bothInterfacesMatchTheShippedXMLAndChangesReachOwnerAndGranteesOnly() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let reader = try f.pythonNamed("change-reader"), stranger = try f.pythonNamed("stranger")
        // The owner makes a pasteboard and grants the reader; each then waits for Changed.
        let made = try await f.runClient("Pasteboard/make-watched", python: try f.pythonNamed("change-owner"), [reader])
        let path = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(path.hasPrefix(Contract.pasteboardPathPrefix + "/"), "\(made.stdout)\(made.stderr)")
        let readerReady = f.records.appendingPathComponent("reader.ready").path, strangerReady = f.records.appendingPathComponent("stranger.ready").path
        async let readerSaw = f.runClient("Pasteboard/watch-changed", python: reader, [path, readerReady, "60"])
        // The stranger listens (a match rule on the path) but is never sent the signal; it gives up
        // after the reader got its Changed.
        let heardIt = f.records.appendingPathComponent("reader.heard").path
        async let strangerSaw = f.runClient("Pasteboard/watch-changed", python: stranger, [path, strangerReady, "120", heardIt])
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: readerReady) && FileManager.default.fileExists(atPath: strangerReady) })
        let set = try await f.runClient("Pasteboard/set-new", python: try f.pythonNamed("change-owner"), [path])
        #expect(set.stdout == "1\n", "\(set.stderr)")
        let r = try await readerSaw
        _ = FileManager.default.createFile(atPath: heardIt, contents: nil)
        let s = try await strangerSaw
        #expect(r.stdout == "no error\nChanged 1\n", "\(r.stdout)\(r.stderr)")
        #expect(s.stdout == "NoSuchPasteboard\n", "\(s.stdout)\(s.stderr)")
        // Introspection is what dbus/ ships, for both interfaces (a file each).
        for (object, interface) in [(ServiceFixture.path, Contract.pasteboardsInterface.rawValue), (path, Contract.pasteboardInterface.rawValue)] {
            let live = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply=literal", "--dest=\(ServiceFixture.name)",
                                            object, "org.freedesktop.DBus.Introspectable.Introspect"])
            let liveElement = ShippedInterface.element(live.stdout, interface)
            let shippedElement = ShippedInterface.element(try ShippedInterface.file(interface), interface)
            #expect(liveElement != nil && liveElement == shippedElement, "\(live.stdout)")
        }
    }
}
