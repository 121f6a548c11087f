import Foundation
import Testing
@testable import SchemeBridgeCore

/// The portal's `FileChooser` backend's rules (issue 40, item 3), without a bus: which types an
/// app's filters ask for, where its `OpenFile` goes (the pick sheet with the providers, or the
/// desktop's own chooser), whose request is SchemeBridge's own, and which backend is the desktop's.
@Suite struct PortalFileChooserRuleTests {
    typealias P = FileChooserRequest.Pattern
    static let db = PickingTests.system

    static func request(_ filters: [[P]] = [], current: [P]? = nil, directory: Bool = false, app: String = "org.test.App") -> FileChooserRequest {
        FileChooserRequest(appID: PortalAppName(app), parentWindow: "x11:0x2A", title: "Insert a scan", multiple: false, directory: directory,
                           filters: filters, currentFilter: current, database: db)
    }

    @Test func theFiltersSayWhichTypes() {
        // No filter at all: anything.
        #expect(FileChooserRequest.types(filters: [], current: nil, database: Self.db) == [])
        #expect(Self.request().subject?.types.map(\.name) == ["*/*"])
        // Content types as given (lower-cased, deduplicated); a glob as the type of a file so named.
        let images = [P(kind: 1, pattern: "IMAGE/PNG"), P(kind: 0, pattern: "*.jpg"), P(kind: 1, pattern: "image/png")]
        #expect(FileChooserRequest.types(filters: [images], current: nil, database: Self.db) == ["image/png", "image/jpeg"])
        // current_filter wins over the list.
        let text = [P(kind: 1, pattern: "text/plain")]
        #expect(FileChooserRequest.types(filters: [images, text], current: text, database: Self.db) == ["text/plain"])
        // Globs SchemeBridge cannot tell: no type, so no provider is offered (nil), unlike "no filter".
        #expect(FileChooserRequest.types(filters: [[P(kind: 0, pattern: "report-*")], [P(kind: 0, pattern: "*.[ch]")]], current: nil, database: Self.db) == nil)
        #expect(Self.request([[P(kind: 0, pattern: "*")]]).subject == nil)
        #expect(FileChooserRequest.types(filters: [[P(kind: 7, pattern: "image/png")]], current: nil, database: Self.db) == nil)
        // The parent window is normalised; a title is kept as the app gave it.
        #expect(Self.request().parentWindow == "x11:2a" && Self.request().title == "Insert a scan")
        #expect(Self.request().caller(frontend: ":1.4", pid: nil).appID == "org.test.App")
        // A host app ("") is not sandboxed; a named app that is no caller identity is, unidentified.
        let host = Self.request(app: "").caller(frontend: ":1.4", pid: nil)
        #expect(host.id == nil && !host.sandboxed && host.sharedIdentity)
        let odd = Self.request(app: "bin/tool").caller(frontend: ":1.4", pid: nil)
        #expect(odd.id == nil && odd.sandboxed && !odd.sharedIdentity)
    }

    @Test func theRouteIsThePickOrTheDesktopsChooser() throws {
        let s = PickingTests.Setup()
        s.tree.entry(1, "scanner.desktop", extra: "Name=Scanner\nX-SchemeBridge-Provides=image/png;")
        let broker = s.broker(config: "[Routes]\npick:text/plain from org.test.Routed=io.github.schemebridge.Files.desktop\n")
        let app = Caller(busName: ":1.4", id: "org.test.App", sandboxed: true)
        let png = [[P(kind: 1, pattern: "image/png")]]
        // A provider of the type: the sheet, with it and "Files…".
        guard case .pick(let subject, .ask(let question)) = broker.route(Self.request(png), caller: app, ownRequest: false) else {
            Issue.record("no sheet for image/png"); return
        }
        #expect(subject.choiceKey == "pick:image/png" && question.candidates.map(\.id) == ["scanner.desktop", Broker.filesCandidate.id])
        // Anything (no filter): the PNG provider is offered too.
        if case .pick = broker.route(Self.request(), caller: app, ownRequest: false) {} else { Issue.record("no sheet for */*") }
        // The desktop's chooser: no provider of the type, a folder, filters of no type, SchemeBridge's
        // own request, and "Files…" routed for the app.
        let text = [[P(kind: 1, pattern: "text/plain")]]
        for (r, own) in [(Self.request(text), false), (Self.request(png, directory: true), false), (Self.request([[P(kind: 0, pattern: "x*")]]), false),
                         (Self.request(png), true), (Self.request(text, app: "org.test.Routed"), false)] {
            let caller = Caller(busName: ":1.4", id: r.appID, sandboxed: true)
            guard case .delegate = broker.route(r, caller: caller, ownRequest: own) else {
                Issue.record("\(r) went to the sheet"); continue
            }
        }
    }

    @Test func ownRequestsAreKnownByTheirHandle() {
        #expect(FileChooserRequest.isOwnRequest(handle: "/org/freedesktop/portal/desktop/request/1_23/schemebridge_ab", uniqueName: ":1.23"))
        #expect(!FileChooserRequest.isOwnRequest(handle: "/org/freedesktop/portal/desktop/request/1_234/t", uniqueName: ":1.23"))
        #expect(!FileChooserRequest.isOwnRequest(handle: "/org/freedesktop/portal/desktop/request/1_9/t", uniqueName: ":1.23"))
        #expect(!FileChooserRequest.isOwnRequest(handle: "/org/freedesktop/portal/desktop/request/1_23/t", uniqueName: "io.github.x"))
    }

    @Test func theDesktopsBackendIsFoundByUseIn() throws {
        let tree = XDGTree(dataDirCount: 1)
        let dir = tree.root + "/portals"
        tree.write(dir + "/gnome.portal", "[portal]\nDBusName=org.freedesktop.impl.portal.desktop.gnome\nInterfaces=org.freedesktop.impl.portal.FileChooser;\nUseIn=gnome\n")
        tree.write(dir + "/kde.portal", "[portal]\nDBusName=org.freedesktop.impl.portal.desktop.kde\nInterfaces=org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.AppChooser;\nUseIn=KDE\n")
        tree.write(dir + "/shot.portal", "[portal]\nDBusName=org.example.Shot\nInterfaces=org.freedesktop.impl.portal.Screenshot;\nUseIn=gnome\n")
        tree.write(dir + "/schemebridge.portal", "[portal]\nDBusName=io.github.schemebridge.SchemeBridge1\nInterfaces=org.freedesktop.impl.portal.FileChooser;\nUseIn=X-SchemeBridge;gnome\n")
        #expect(FileChooserDelegate.busName(portalsDirectory: dir, desktops: ["GNOME"]) == "org.freedesktop.impl.portal.desktop.gnome")
        #expect(FileChooserDelegate.busName(portalsDirectory: dir, desktops: ["X-Other", "kde"]) == "org.freedesktop.impl.portal.desktop.kde")
        #expect(FileChooserDelegate.busName(portalsDirectory: dir, desktops: ["X-SchemeBridge"]) == FileChooserDelegate.fallback)
        #expect(FileChooserDelegate.busName(portalsDirectory: tree.root + "/none", desktops: ["gnome"]) == FileChooserDelegate.fallback)
    }

    @Test func dialogsRunWithPortalsOff() {
        #expect(DialogPortals.environment(["GTK_USE_PORTAL": "1", "HOME": "/h"]) == ["GTK_USE_PORTAL": "0", "HOME": "/h"])
    }

    @Test func providedDocumentsAreFileURIs() {
        #expect(FileChooserRequest.uris([Array("/h/inbox/org.test.App/a scan #1.png".utf8)]) == ["file:///h/inbox/org.test.App/a%20scan%20%231.png"])
    }
}
