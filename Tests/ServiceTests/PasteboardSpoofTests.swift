import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 21, item 4: a pasteboard hand-off cannot be spoofed. Names are per owner, so an attacker
/// that saw the name (it is in the URL) makes a pasteboard of the same name, writes forged data
/// and grants it to the viewer. The viewer launched for the owner's pasteboard must read the
/// owner's data (the launched-for pasteboard wins), a viewer not launched for either gets
/// `AmbiguousPasteboard` (never the newest), and the handler is handed the unguessable object
/// path: `SCHEMEBRIDGE_PASTEBOARD_PATH` when spawned, `pasteboard-path` in `platform_data` when
/// D-Bus activated.
@Suite struct PasteboardSpoofTests {
    // Clients/PasteboardSpoof: owner.py (a pasteboard holding {"pay":"alice"} opened with argv[1] + its
    // name; prints the name), attacker.py (the same name, forged data, granted to argv[2]), read_both.py.

    /// Opens the viewer's gate (the attack is done) and returns what it read, from `records/<file>`.
    static func viewerRead(_ f: ServiceFixture, _ file: String) async -> [String: String] {
        f.release("view")
        let out = f.records.appendingPathComponent(file)
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: out.path) }, "\(f.serviceLog)")
        return (try? JSONSerialization.jsonObject(with: Data(contentsOf: out))) as? [String: String] ?? [:]
    }

    @Test func theSpawnedViewerReadsTheOwnersDataNotTheAttackers() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The viewer's entry runs its program directly, so the viewer is org.example.Viewer (as
        // an app started from its entry is); it waits on a gate, so the attack lands first.
        let viewer = try f.pythonNamed("viewer")
        try f.entry("org.example.Viewer.desktop", "Name=Viewer\nExec=\(viewer) \(Clients.path("PasteboardSpoof/viewer")) %u \(f.bus.address) \(try f.pasteboardModule()) \(f.gate.file("view")) \(f.gate.directory.path) \(f.records.path)\nMimeType=x-scheme-handler/viewer;")

        let owner = try await f.runClient("PasteboardSpoof/owner", python: try f.pythonNamed("owner-app"), ["viewer://?ReadPasteboardData#"])
        let name = owner.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(name.hasPrefix("pasteboard-"), "\(owner.stdout)\(owner.stderr)\n\(f.serviceLog)")
        // The attacker is another app (a hard link of python under another name).
        let attack = try await f.runClient("PasteboardSpoof/attacker", python: try f.pythonNamed("mallory"), [name, "org.example.Viewer"])
        #expect(attack.stdout == "True\n", "\(attack.stdout)\(attack.stderr)")

        let read = await Self.viewerRead(f, "viewer.json")
        #expect(read["name"] == "{\"pay\":\"alice\"}", "FindPasteboard in the launched viewer: \(read)")
        #expect(read["path"] == "{\"pay\":\"alice\"}", "SCHEMEBRIDGE_PASTEBOARD_PATH: \(read)")

        // The same viewer app not launched for it (run again by hand): both owners granted it a
        // pasteboard of that name, so the name alone is ambiguous, never the newest.
        let later = try await f.runClient("PasteboardSpoof/read-by-name", python: viewer, [name])
        #expect(later.stdout == "\(ContractError.ambiguousPasteboard.rawValue)\n", "\(later.stdout)\(later.stderr)")
    }

    @Test func anActivatedViewerIsHandedThePathAndReadsTheOwnersData() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.ActiveViewer.desktop", "Name=Active Viewer\nDBusActivatable=true\nMimeType=x-scheme-handler/aviewer;")
        let viewer = try f.pythonNamed("active-viewer")
        // The app answers Open at once and reads once the gate opens (after the attack).
        let app = try Tools.spawn([viewer, Clients.path("PasteboardSpoof/active-viewer"), f.bus.address, try f.pasteboardModule(),
                                   f.gate.file("view"), f.gate.directory.path, f.records.path])
        defer { app.terminate() }
        #expect(await Tools.eventually {
            let r = try? await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus.NameHasOwner", "string:org.example.ActiveViewer"])
            return r?.stdout.contains("boolean true") == true
        })
        let owner = try await f.runClient("PasteboardSpoof/owner", python: try f.pythonNamed("owner-app"), ["aviewer://?ReadPasteboardData#"])
        let name = owner.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(name.hasPrefix("pasteboard-"), "\(owner.stdout)\(owner.stderr)\n\(f.serviceLog)")
        // The running app is known by its executable; the attacker grants exactly that.
        let attack = try await f.runClient("PasteboardSpoof/attacker", python: try f.pythonNamed("mallory"), [name, viewer])
        #expect(attack.stdout == "True\n", "\(attack.stdout)\(attack.stderr)")

        let read = await Self.viewerRead(f, "active.json")
        #expect(read["name"] == "{\"pay\":\"alice\"}", "FindPasteboard in the activated viewer: \(read)")
        #expect(read["path"] == "{\"pay\":\"alice\"}", "platform_data pasteboard-path: \(read)")
    }

    @Test func theCLIReadingAnAmbiguousNameFailsWithStatus4AndNamesThePath() async throws {
        let w = try PasteboardCLIWorld()
        defer { w.f.stop() }
        let third = try PasteboardCLIWorld.app(w.f, "third-app", "org.example.Third")
        for app in [w.owner, third] {
            #expect(try await w.pasteboard(app, "create", "shared").status == 0)
            #expect(try await w.pasteboard(app, "write", "shared", "text/plain", "-", stdin: w.file("in-\(app.hashValue)", app)).status == 0)
            #expect(try await w.pasteboard(app, "grant", "shared", "org.example.Other").status == 0)
        }
        let read = try await w.pasteboard(w.other, "read", "shared")
        #expect(read.status == 4 && read.stdout.isEmpty && read.stderr.contains("object path"), "\(read.status) \(read.stdout) \(read.stderr)")
    }
}
