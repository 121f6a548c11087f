import Foundation
import Glibc
import Testing
import DBusTestSupport

/// Issue 40, item 3: SchemeBridge as the portal's `FileChooser` backend. A real `flatpak run` app
/// with no `--talk-name` (org.test.NoTalk) calls `FileChooser.OpenFile` (`SaveFile`) on Debian
/// 12's real xdg-desktop-portal (1.16), which takes SchemeBridge's shipped `schemebridge.portal`
/// (first in its `XDG_CURRENT_DESKTOP`, as after `integrate --portal` on 1.16). SchemeBridge's
/// sheet (`[Chooser] Command=`) offers the document providers beside "Files…": a provider's
/// document reaches the app through the document portal; "Files…" and `SaveFile` are the real
/// GTK backend's (`xdg-desktop-portal-gtk`, its dialog on the private Xvfb), called directly.
@Suite struct PortalFileChooserTests {
    /// The portal with SchemeBridge's backend, the provider `scanner.desktop` (PNG and JPEG;
    /// `steps` for `Clients/Pick/provider.py`) and the sheet `chooser` (a `[Chooser] Command=`
    /// body; it records the `GTK_USE_PORTAL` it ran with in `records/sheet.gtk-use-portal`).
    /// `held`: the sheet's body made from the fixture instead of `body`.
    static func stage(provider steps: [String], sheet body: String, held: ((ServiceFixture) throws -> String)? = nil,
                      readable: Bool = false) async throws -> (PortalFixture, calls: URL) {
        let p = try await PortalFixture(currentDesktop: "X-SchemeBridge:\(PortalFixture.desktop)", readable: readable)
        try p.addSchemeBridgePortal()
        try PickTests.provider(p.service, steps)
        let record = p.service.records.appendingPathComponent("sheet.gtk-use-portal").path
        let sheet = try p.service.chooser("sheet", "printf '%s\\n' \"${GTK_USE_PORTAL-unset}\" > '\(record)'\n" + (try held?(p.service) ?? body))
        try p.service.writeConfig("[Chooser]\nCommand=\(sheet)\nTimeout=3600\n")
        let calls = try await p.monitor(interface: "org.freedesktop.impl.portal.FileChooser")
        return (p, calls)
    }

    /// `portal-client pick|save TITLE` in the sandbox, which stays until the portal's Response:
    /// the response code and the uris.
    static func choose(_ p: PortalFixture, _ kind: String = "pick", title: String) async throws -> (code: UInt32, uris: [String]) {
        let r = try await p.flatpak.flatpak(["run", "--command=portal-client", "org.test.NoTalk", kind, title])
        let lines = r.stdout.split(separator: "\n").map(String.init)
        guard r.status == 0, let first = lines.first, first.hasPrefix("response "), let code = UInt32(first.dropFirst(9)) else {
            throw ToolError("portal-client \(kind) in the sandbox failed: \(r.stdout) \(r.stderr)\n\(p.busLog)")
        }
        return (code, lines.dropFirst().filter { $0.hasPrefix("uri ") }.map { String($0.dropFirst(4)) })
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("a scan from the provider\n".utf8)

    @Test func aProvidersDocumentArrivesReadableInTheSandbox() async throws {
        let scan = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-scan-\(UUID().uuidString.prefix(8)).png")
        try Data(Self.png).write(to: scan)
        defer { try? FileManager.default.removeItem(at: scan) }
        let (p, calls) = try await Self.stage(provider: ["answer:\(scan.path):image/png:scan.png"], sheet: "printf 'scanner.desktop\\n'")
        defer { p.stop() }

        let (code, uris) = try await Self.choose(p, title: "Insert a scan")
        #expect(code == 0, "\(PickTests.providerLog(p.service))\n\(p.service.serviceLog)\n\(p.busLog)")
        // The frontend put the Inbox copy into the document portal for the app.
        let uri = try #require(uris.first, "no uri: \(p.service.serviceLog)")
        #expect(uris.count == 1 && uri.hasPrefix("file://\(FlatpakFixture.documents)/") && uri.hasSuffix("/scan.png"), "\(uris)")
        // The copy in the app's Inbox, read-only, byte for byte.
        let copy = p.service.dataHome.appendingPathComponent("schemebridge/inbox/org.test.NoTalk/scan.png")
        #expect((try? Data(contentsOf: copy)) == Data(Self.png), "\((try? Data(contentsOf: copy))?.count ?? -1) bytes in \(copy.path)")
        #expect(((try? FileManager.default.attributesOfItem(atPath: copy.path))?[.posixPermissions] as? Int) == 0o444)
        let inside = String(uri.dropFirst("file://".count))
        // Read inside the sandbox into the app's own data folder (its bytes are no text: a PNG).
        let read = try await p.flatpak.flatpak(["run", "--command=bash", "org.test.NoTalk", "-c", "cat \"$1\" > \"$XDG_DATA_HOME/read.out\"", "sh", inside])
        let out = p.service.root.appendingPathComponent(".var/app/org.test.NoTalk/data/read.out")
        #expect(read.status == 0 && (try? Data(contentsOf: out)) == Data(Self.png), "\(read.stdout) \(read.stderr) \(uri)")
        // The sheet listed the provider and "Files…", with the app's title, and ran with portals off.
        let saw = p.service.chooserSaw("sheet")
        #expect(saw.contains("scanner.desktop\t") && saw.contains("io.github.schemebridge.Files.desktop\t") && saw.contains("SCHEMEBRIDGE_CHOOSER_TITLE=Insert a scan"), "\(saw)")
        #expect(saw.contains("SCHEMEBRIDGE_CHOOSER_CALLER=org.test.NoTalk"), "\(saw)")
        #expect((try? String(contentsOf: p.service.records.appendingPathComponent("sheet.gtk-use-portal"), encoding: .utf8)) == "0\n")
        // SchemeBridge was asked, and the GTK backend never was.
        let ours = try #require(try await p.owner(of: "io.github.schemebridge.SchemeBridge1"))
        var seen = ""
        #expect(await Tools.eventually {
            seen = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
            return seen.contains("destination=\(ours) ") && seen.contains("member=OpenFile")
        }, "\(seen)")
        #expect(!seen.contains("destination=\(PortalFixture.gtkName) "), "\(seen)")
        #expect(!PortalAppChooserTests.gtkDialogShown(p))
    }

    /// The Inbox copy behind a picked document lives as long as the app's document: past the
    /// retention it stays while the document portal has the document (the app may open it again),
    /// and goes at the first sweep after the document is deleted; a copy no document refers to
    /// goes after the retention as before. (A sweep runs at the service's start: it is restarted.)
    @Test func thePickedCopyLivesAsLongAsTheAppsDocument() async throws {
        let scan = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-scan-\(UUID().uuidString.prefix(8)).png")
        try Data(Self.png).write(to: scan)
        defer { try? FileManager.default.removeItem(at: scan) }
        let (p, _) = try await Self.stage(provider: ["answer:\(scan.path):image/png:scan.png"], sheet: "printf 'scanner.desktop\\n'")
        defer { p.stop() }
        let (code, uris) = try await Self.choose(p, title: "Insert a scan")
        let uri = try #require(uris.first, "no uri (\(code)): \(p.service.serviceLog)")
        let inbox = p.service.dataHome.appendingPathComponent("schemebridge/inbox/org.test.NoTalk")
        let copy = inbox.appendingPathComponent("scan.png"), orphan = inbox.appendingPathComponent("orphan.png")
        try Data(Self.png).write(to: orphan)
        let old = Date(timeIntervalSinceNow: -8 * 86_400)  // past the 7 days' retention
        for f in [copy, orphan] { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: f.path) }

        try await Self.restartService(p)
        #expect(await Tools.eventually { !FileManager.default.fileExists(atPath: orphan.path) }, "the unreferenced old copy stays\n\(p.service.serviceLog)")
        #expect(FileManager.default.fileExists(atPath: copy.path), "the copy behind the app's document went")
        let read = try await p.flatpak.flatpak(["run", "--command=bash", "org.test.NoTalk", "-c", "cat \"$1\" > \"$XDG_DATA_HOME/kept.out\"", "sh",
                                                String(uri.dropFirst("file://".count))])
        let out = p.service.root.appendingPathComponent(".var/app/org.test.NoTalk/data/kept.out")
        #expect(read.status == 0 && (try? Data(contentsOf: out)) == Data(Self.png), "\(read.stderr)")

        // The document deleted (as `flatpak document-unexport` does): the next sweep takes the copy.
        let id = String(uri.dropFirst("file://\(FlatpakFixture.documents)/".count).prefix { $0 != "/" })
        let deleted = try await Tools.run(["gdbus", "call", "--address", p.service.bus.address, "--dest", "org.freedesktop.portal.Documents",
                                           "--object-path", "/org/freedesktop/portal/documents", "--method", "org.freedesktop.portal.Documents.Delete", id])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        try await Self.restartService(p)
        #expect(await Tools.eventually { !FileManager.default.fileExists(atPath: copy.path) }, "the copy outlived its document")
    }

    /// `OpenFile`'s copy for a Flatpak handler (a transient document of its own, which lives as
    /// long as the document portal runs) goes at the first sweep past `[Documents] Retention`, as
    /// any Inbox copy does — while its document is still in the portal — and the picked copy
    /// behind the app's persistent document stays (that is what keeps a copy in use).
    @Test func anOpenFileCopyForAFlatpakHandlerGoesAfterTheRetentionAndThePickedOneStays() async throws {
        let scan = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-scan-\(UUID().uuidString.prefix(8)).png")
        try Data(Self.png).write(to: scan)
        defer { try? FileManager.default.removeItem(at: scan) }
        let (p, _) = try await Self.stage(provider: ["answer:\(scan.path):image/png:scan.png"], sheet: "printf 'scanner.desktop\\n'")
        defer { p.stop() }
        let (code, uris) = try await Self.choose(p, title: "Insert a scan")
        #expect(code == 0 && uris.count == 1, "\(uris) \(p.service.serviceLog)")
        let picked = p.service.dataHome.appendingPathComponent("schemebridge/inbox/org.test.NoTalk/scan.png")
        // The text/plain handler is the sandboxed org.test.Handler: OpenFile copies into its Inbox
        // and hands the copy in as a transient document.
        try p.flatpak.installExportedEntry("org.test.Handler")
        let file = p.service.root.appendingPathComponent("notes.txt")
        try "the user's notes\n".write(to: file, atomically: true, encoding: .utf8)
        let out = try await FlatpakDocumentTests.openFile(p.flatpak, file, access: "r", mode: "")
        #expect(out.contains("org.test.Handler.desktop"), "\(out)\n\(p.service.serviceLog)")
        let doc = try #require(FlatpakDocumentTests.portalDocument(await p.flatpak.handlerArgv()), "\(out)\n\(p.service.serviceLog)")
        let copy = p.service.dataHome.appendingPathComponent("schemebridge/inbox/org.test.Handler/notes.txt")
        #expect((try? String(contentsOf: copy, encoding: .utf8)) == "the user's notes\n")
        let old = Date(timeIntervalSinceNow: -8 * 86_400)  // past the 7 days' retention
        for f in [copy, picked] { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: f.path) }

        try await Self.restartService(p)
        #expect(await Tools.eventually { !FileManager.default.fileExists(atPath: copy.path) }, "OpenFile's copy outlived the retention\n\(p.service.serviceLog)")
        #expect(FileManager.default.fileExists(atPath: picked.path), "the copy behind the app's document went")
        // Its transient document is still in the portal: the copy went by the retention, not with it.
        let info = try await Tools.run(["gdbus", "call", "--address", p.service.bus.address, "--dest", "org.freedesktop.portal.Documents",
                                        "--object-path", "/org/freedesktop/portal/documents", "--method", "org.freedesktop.portal.Documents.Info", doc.id])
        #expect(info.status == 0 && info.stdout.contains("notes.txt"), "\(info.stdout) \(info.stderr)")
    }

    /// Stops the service (SIGKILL) and starts it again by a call, as the bus does.
    static func restartService(_ p: PortalFixture) async throws {
        let pid = try #require(await p.service.servicePID())
        kill(pid, SIGKILL)
        #expect(await Tools.eventually { await p.service.servicePID() != pid })
        let r = try await p.service.gdbus("CanOpenURL", "todolist://x")
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func aCancelOnTheSheetIsResponseOne() async throws {
        let (p, _) = try await Self.stage(provider: ["answer:/nonexistent:image/png:x.png"], sheet: "exit 1")
        defer { p.stop() }
        let (code, uris) = try await Self.choose(p, title: "Insert a scan")
        #expect(code == 1 && uris.isEmpty, "\(p.service.serviceLog)")
        #expect(p.service.chooserRuns("sheet") == 1)
        #expect(!FileManager.default.fileExists(atPath: p.service.records.appendingPathComponent("provider.token").path), "the provider was started")
        #expect(!PortalAppChooserTests.gtkDialogShown(p))
    }

    /// "Files…" is the GTK backend's: the same `OpenFile` (the frontend's handle) is made on its
    /// impl object, its dialog comes up, real key presses choose a file there, and that file
    /// reaches the sandbox.
    @Test func filesIsTheDesktopsOwnChooser() async throws {
        let (p, calls) = try await Self.stage(provider: ["answer:/nonexistent:image/png:x.png"], sheet: "printf 'io.github.schemebridge.Files.desktop\\n'",
                                              readable: true)
        defer { p.stop() }
        // A path GTK's location field takes typed from the clipboard (no capitals needed).
        let folder = try Tools.typeableFolder("sbportal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let chosen = folder.appendingPathComponent("chosen.txt")
        try "chosen in the gtk dialog\n".write(to: chosen, atomically: true, encoding: .utf8)

        async let picked = Self.choose(p, title: "Pick a note")
        let w = try #require(await Self.gtkDialog(p), "the GTK file chooser never showed\n\(p.service.serviceLog)\n\(p.busLog)")
        let ours = try #require(try await p.owner(of: "io.github.schemebridge.SchemeBridge1"))
        let gtk = try #require(try await p.owner(of: PortalFixture.gtkName))
        // Sent to the GTK backend's well-known name (its unique name when it was up already).
        let (handles, toGTK) = await Self.passedOn(calls, member: "OpenFile", ours: ours, gtk: gtk)
        #expect(handles[ours]?.count == 1 && toGTK == handles[ours], "the frontend's request went on unchanged: \(handles)")
        try await Self.enter(chosen.path, into: w, titled: "Pick a note", p, folder: folder)
        let (code, uris) = try await picked
        #expect(code == 0 && uris.count == 1, "\(uris) \(p.service.serviceLog)")
        if let uri = uris.first {
            #expect(uri.hasPrefix("file://\(FlatpakFixture.documents)/") && uri.hasSuffix("/chosen.txt"), "\(uri)")
            let read = try await p.flatpak.flatpak(["run", "--command=cat", "org.test.NoTalk", String(uri.dropFirst("file://".count))])
            #expect(read.stdout == "chosen in the gtk dialog\n", "\(read.stdout) \(read.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: p.service.records.appendingPathComponent("provider.token").path))
    }

    /// The app closes its Open dialog's request while SchemeBridge's sheet is up: the sheet goes
    /// away, the answer is a cancel (1), and no provider starts.
    @Test func aCloseWhileTheSheetIsUpTakesItDown() async throws {
        // The sheet says it is up (in the app's data folder, which the sandboxed app sees), then
        // waits for a person until its dialog process ($PPID) is gone.
        let (p, _) = try await Self.stage(provider: ["answer:/nonexistent:image/png:x.png"], sheet: "", held: { f in
            let data = f.root.appendingPathComponent(".var/app/org.test.NoTalk/data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let up = data.appendingPathComponent("sheet-up").path
            return "echo $PPID > '\(up).part' && mv '\(up).part' '\(up)'\nwhile kill -0 $PPID 2>/dev/null; do sleep 0.1; done\nexit 1"
        })
        defer { p.stop() }
        let up = p.service.root.appendingPathComponent(".var/app/org.test.NoTalk/data/sheet-up")
        let replies = try await Self.replies(p)
        let r = try await p.flatpak.flatpak(["run", "--env=PORTAL_CLOSE_WHEN=\(up.path)", "--command=portal-client", "org.test.NoTalk", "pick", "Insert a scan"])
        #expect(r.status == 0 && r.stdout == "closed\n", "\(r.stdout) \(r.stderr)\n\(p.service.serviceLog)")
        let pid = try #require(Int32(((try? String(contentsOf: up, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await Tools.eventually { kill(pid, 0) != 0 }, "the sheet \(pid) is still up after the Close\n\(p.service.serviceLog)")
        #expect(await Self.answeredOne(replies))
        #expect(!FileManager.default.fileExists(atPath: p.service.records.appendingPathComponent("provider.token").path), "the provider was started")
    }

    /// The app closes its request while "Files…" is the GTK backend's dialog: SchemeBridge sends the
    /// `Close` on to the GTK backend's own request, whose dialog goes away; the answer is a cancel (1).
    @Test func aCloseWhileTheDesktopsChooserIsUpReachesIt() async throws {
        let (p, _) = try await Self.stage(provider: ["answer:/nonexistent:image/png:x.png"], sheet: "printf 'io.github.schemebridge.Files.desktop\\n'")
        defer { p.stop() }
        let data = p.service.root.appendingPathComponent(".var/app/org.test.NoTalk/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let closeNow = data.appendingPathComponent("close-now")
        let replies = try await Self.replies(p)
        let closes = try await p.monitor(match: "type='method_call',interface='org.freedesktop.impl.portal.Request',member='Close'")
        async let closed = p.flatpak.flatpak(["run", "--env=PORTAL_CLOSE_WHEN=\(closeNow.path)", "--command=portal-client", "org.test.NoTalk", "pick", "Pick a note"])
        _ = try #require(await Self.gtkDialog(p), "the GTK file chooser never showed\n\(p.service.serviceLog)\n\(p.busLog)")
        try Data().write(to: closeNow)
        let r = try await closed
        #expect(r.status == 0 && r.stdout == "closed\n", "\(r.stdout) \(r.stderr)")
        #expect(await Tools.eventually { !PortalAppChooserTests.gtkDialogShown(p) }, "the GTK dialog is still up\n\(p.busLog)")
        let ours = try #require(try await p.owner(of: "io.github.schemebridge.SchemeBridge1"))
        let gtk = try await p.owner(of: PortalFixture.gtkName)
        var seen = ""
        #expect(await Tools.eventually {
            seen = (try? String(contentsOf: closes, encoding: .utf8)) ?? ""
            // The frontend's Close to SchemeBridge, and SchemeBridge's to the GTK backend.
            let gtkNames = [PortalFixture.gtkName] + (gtk.map { [$0] } ?? [])
            return seen.contains("destination=\(ours) ")
                && seen.split(separator: "\n").contains { line in line.contains("sender=\(ours) ") && gtkNames.contains { line.contains("destination=\($0) ") } }
        }, "\(seen)")
        #expect(await Self.answeredOne(replies))
    }

    /// A monitor of SchemeBridge's method returns.
    static func replies(_ p: PortalFixture) async throws -> URL {
        try await p.monitor(match: "type='method_return',sender='\(try await p.schemeBridge())'")
    }

    /// Whether SchemeBridge answered the backend call 1 and never 0 (a `Close`'s reply has no body).
    static func answeredOne(_ replies: URL) async -> Bool {
        var seen = ""
        let one = await Tools.eventually {
            seen = (try? String(contentsOf: replies, encoding: .utf8)) ?? ""
            return seen.contains("uint32 1")
        }
        return one && !seen.contains("uint32 0")
    }

    /// `SaveFile` goes to the GTK backend unchanged, with no sheet; its answer is the app's: a
    /// name chosen in the real GTK dialog, which the app then writes through the document portal.
    @Test func saveFileIsPassedOn() async throws {
        let (p, calls) = try await Self.stage(provider: ["answer:/nonexistent:image/png:x.png"], sheet: "exit 1", readable: true)
        defer { p.stop() }
        let folder = try Tools.typeableFolder("sbportal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("saved.txt")
        async let saved = Self.choose(p, "save", title: "Save a note")
        let w = try #require(await Self.gtkDialog(p), "the GTK save dialog never showed\n\(p.service.serviceLog)\n\(p.busLog)")
        let ours = try #require(try await p.owner(of: "io.github.schemebridge.SchemeBridge1"))
        let gtk = try #require(try await p.owner(of: PortalFixture.gtkName))
        let (handles, toGTK) = await Self.passedOn(calls, member: "SaveFile", ours: ours, gtk: gtk)
        #expect(handles[ours]?.count == 1 && toGTK == handles[ours], "\(handles)")
        // ctrl+A selects the name field's text; the whole path replaces it.
        try await Self.enter(target.path, into: w, titled: "Save a note", p, folder: folder, selecting: "ctrl+a")
        let (code, uris) = try await saved
        #expect(code == 0 && uris.count == 1 && uris.first?.hasSuffix("/saved.txt") == true, "\(code) \(uris) \(p.service.serviceLog)")
        if let uri = uris.first {
            let write = try await p.flatpak.flatpak(["run", "--command=bash", "org.test.NoTalk", "-c", "printf 'saved in the sandbox\\n' > \"$1\"",
                                                     "sh", String(uri.dropFirst("file://".count))])
            #expect(write.status == 0 && (try? String(contentsOf: target, encoding: .utf8)) == "saved in the sandbox\n", "\(write.stderr)")
        }
        #expect(p.service.chooserRuns("sheet") == 0)
    }

    // MARK: helpers

    /// The GTK backend's dialog, once mapped and drawn.
    static func gtkDialog(_ p: PortalFixture) async -> TopLevelWindow? {
        var window: TopLevelWindow?
        _ = await Tools.eventually {
            window = try? p.xvfb.topLevelWindows().first { $0.resName == "xdg-desktop-portal-gtk" && $0.isMapped && $0.width > 100 && $0.height > 100 }
            return window != nil
        }
        guard let w = window else { return nil }
        _ = await p.xvfb.watch { shot in shot.boundingBox().map { $0.width >= w.width / 2 && $0.height >= w.height / 2 } ?? false }
        return w
    }

    /// The request handles (`object path "…"` after the call's header) of the `member` calls in
    /// a `dbus-monitor` log, by destination.
    static func handles(_ log: String, member: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        let lines = log.split(separator: "\n").map(String.init)
        for (i, line) in lines.enumerated() where line.contains("member=\(member)") {
            guard let d = line.range(of: "destination=") else { continue }
            let destination = String(line[d.upperBound...].prefix { $0 != " " })
            if let path = lines.dropFirst(i + 1).first(where: { $0.contains("object path") }), let q = path.firstIndex(of: "\"") {
                out[destination, default: []].append(String(path[path.index(after: q)...].dropLast()))
            }
        }
        return out
    }

    /// The handles of the `member` calls the monitor saw, by destination, and those sent to the GTK
    /// backend (by its well-known or unique name), once SchemeBridge's call was passed on.
    static func passedOn(_ calls: URL, member: String, ours: String, gtk: String) async -> ([String: [String]], [String]) {
        var handles: [String: [String]] = [:], toGTK: [String] = []
        _ = await Tools.eventually {
            handles = Self.handles((try? String(contentsOf: calls, encoding: .utf8)) ?? "", member: member)
            toGTK = (handles[gtk] ?? []) + (handles[PortalFixture.gtkName] ?? [])
            return handles[ours] != nil && !toGTK.isEmpty
        }
        return (handles, toGTK)
    }

    /// Chooses `path` in the GTK backend's file chooser `w`, titled `title` (ctrl+L, the location
    /// field, or ctrl+A, the save dialog's name: ``AccessibilityBus/choose(_:in:of:titled:on:selecting:folder:)``).
    static func enter(_ path: String, into w: TopLevelWindow, titled title: String, _ p: PortalFixture, folder: URL,
                      selecting select: String = "ctrl+l") async throws {
        let a11y = try #require(p.accessibility, "the portal fixture was made without an accessibility bus (readable: true)")
        try await a11y.choose(path, in: w, of: "xdg-desktop-portal-gtk", titled: title, on: p.xvfb, selecting: select, folder: folder)
    }
}
