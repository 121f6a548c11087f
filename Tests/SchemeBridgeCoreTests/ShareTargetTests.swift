import Foundation
import Testing
@testable import SchemeBridgeCore

/// Share targets declared in desktop entries and the share decision, without a bus: parsing
/// (broken declarations skipped with a reason), matching with wildcards and sub-classes, the
/// built-in activities, the precedence (named > remembered > route > sheet), `NoTarget`.
@Suite struct ShareTargetTests {
    struct Setup {
        let mime = MimeFixture()
        var tree: XDGTree { mime.tree }

        /// A broker over `mime`'s database (a declared sub-class: `application/x-t-notes` is a
        /// `application/json`).
        func broker(config: String = "", watch: Bool = false) throws -> Broker {
            try mime.install("""
                <mime-type type="application/json"><glob pattern="*.json"/></mime-type>
                <mime-type type="application/x-t-notes"><sub-class-of type="application/json"/><glob pattern="*.tnotes"/></mime-type>
                """)
            return DecidingTests.Setup.broker(tree: tree, types: mime.database(), config: config, watch: watch)
        }

        /// An entry with one share action `share` accepting `types`.
        func target(_ id: String, types: String, action: String = "share", extraAction: String = "", extra: String = "") {
            tree.entry(1, id, exec: "/bin/true", extra: "Actions=\(action);\n\(extra)\n[Desktop Action \(action)]\nName=Share with \(id)\nIcon=\(id)-icon\nExec=/bin/true %F\nX-SchemeBridge-Share-Types=\(types)\n\(extraAction)")
        }
    }

    static func caller(_ app: String?) -> Caller { Caller(busName: ":1.9", id: app.flatMap(CallerID.init)) }
    static let none = ShareTools(copy: false, save: false)
    static func data(_ type: String) -> ShareItemSummary { ShareItemSummary(kind: .data, type: type) }
    static func file(_ type: String) -> ShareItemSummary { ShareItemSummary(kind: .file, type: type) }
    static func ids(_ b: Broker, _ items: [ShareItemSummary], tools: ShareTools = none, app: String? = "org.example.Caller") -> [String] {
        b.shareTargets(for: items, caller: Self.caller(app), tools: tools).map(\.id)
    }

    @Test func wildcardsAndSubClassesMatch() throws {
        let s = Setup()
        s.target("photos.desktop", types: "image/*;")
        s.target("notes.desktop", types: "text/plain;application/json;")
        s.target("any.desktop", types: "*/*;", extraAction: "X-SchemeBridge-Share-MaxItems=1")
        let b = try s.broker()
        #expect(Self.ids(b, [Self.data("image/png")]) == ["any.desktop:share", "photos.desktop:share"])
        // text/markdown is a text/plain; a declared sub-class of application/json counts.
        #expect(Self.ids(b, [Self.data("text/markdown")]) == ["any.desktop:share", "notes.desktop:share"])
        #expect(Self.ids(b, [Self.data("application/x-t-notes")]) == ["any.desktop:share", "notes.desktop:share"])
        // A URL is text/x-uri, a text/plain.
        #expect(Self.ids(b, [ShareItemSummary(kind: .url, type: ShareItemSummary.uriType)]) == ["any.desktop:share", "notes.desktop:share"])
        // Every item must be accepted; MaxItems counts.
        #expect(Self.ids(b, [Self.data("image/png"), Self.data("text/plain")]).isEmpty)
        #expect(Self.ids(b, [Self.data("image/png"), Self.data("image/jpeg")]) == ["photos.desktop:share"])
        let target = try #require(b.shareTargets(for: [Self.data("image/png")], caller: Self.caller("a"), tools: Self.none).last)
        #expect(target == ShareTarget(id: "photos.desktop:share", name: "Share with photos.desktop", icon: "photos.desktop-icon", kind: .app))
    }

    @Test func brokenDeclarationsAreSkippedWithAReason() throws {
        let s = Setup()
        s.target("good.desktop", types: "text/plain;not a type;")
        s.target("notypes.desktop", types: "nothing;;")
        s.target("badmax.desktop", types: "text/plain;", extraAction: "X-SchemeBridge-Share-MaxItems=-3")
        s.target("badaction.desktop", types: "text/plain;", action: "has_underscore")
        s.tree.entry(1, "noexec.desktop", exec: "/bin/true", extra: "Actions=s;\n[Desktop Action s]\nName=S\nX-SchemeBridge-Share-Types=text/plain;")
        s.tree.entry(1, "badexec.desktop", exec: "/bin/true", extra: "Actions=s;\n[Desktop Action s]\nName=S\nExec=x %z\nX-SchemeBridge-Share-Types=text/plain;")
        s.tree.entry(1, "noname.desktop", exec: "/bin/true", extra: "Actions=s;\n[Desktop Action s]\nExec=x\nX-SchemeBridge-Share-Types=text/plain;")
        // Not listed in Actions=: not a target, and nothing to warn about.
        s.tree.entry(1, "unlisted.desktop", exec: "/bin/true", extra: "[Desktop Action s]\nName=S\nExec=x\nX-SchemeBridge-Share-Types=text/plain;")
        let b = try s.broker()
        #expect(Self.ids(b, [Self.data("text/plain")]) == ["good.desktop:share"])
        let warnings = b.registry.recentWarnings.map(\.description).joined(separator: "\n")
        for (file, why) in [("notypes", "names no valid content type"), ("badmax", "MaxItems= must be"), ("badaction", "action identifier"),
                            ("noexec", "no Exec="), ("badexec", "Exec= is invalid"), ("noname", "no Name="), ("good", "ignored 1 invalid type")] {
            #expect(warnings.contains(file + ".desktop") && warnings.contains(why), "no warning for \(file): \(why)\n\(warnings)")
        }
    }

    /// Names and icons with control characters, huge names, and far too many actions.
    @Test func hostileDeclarationsAreTamed() throws {
        let s = Setup()
        let long = String(repeating: "é", count: 5000)
        let actions = (0..<100).map { "a\($0)" }
        var groups = ""
        for a in actions { groups += "[Desktop Action \(a)]\nName=\(long)\\n\\tX\nIcon=bad\\ticon\nExec=/bin/true\nX-SchemeBridge-Share-Types=*/*\n" }
        s.tree.entry(1, "hostile.desktop", exec: "/bin/true", extra: "Actions=\(actions.joined(separator: ";"));\n" + groups)
        let b = try s.broker()
        let targets = b.shareTargets(for: [Self.data("text/plain")], caller: Self.caller("x"), tools: Self.none)
        #expect(targets.count == ShareAction.maximumActions)
        for t in targets {
            #expect(t.name.utf8.count <= ShareAction.maximumNameBytes)
            #expect(!t.name.unicodeScalars.contains { $0.value < 0x20 })
            #expect(t.icon == "")
        }
    }

    @Test func builtInActivities() throws {
        let s = Setup()
        s.tree.entry(1, "viewer.desktop", mimeTypes: ["application/json"], extra: "Name=Viewer\nIcon=viewer")
        s.tree.entry(1, "texts.desktop", mimeTypes: ["text/plain"], extra: "Name=Texts")
        let b = try s.broker()
        let both = ShareTools(copy: true, save: true)
        // Open in: files only, the apps whose MimeType= opens every file's type (along its chain).
        #expect(Self.ids(b, [Self.file("application/x-t-notes")], tools: both) == ["builtin:open-in:viewer.desktop", "builtin:save"])
        #expect(Self.ids(b, [Self.file("text/markdown")], tools: both) == ["builtin:open-in:texts.desktop", "builtin:copy", "builtin:save"])
        #expect(Self.ids(b, [Self.file("text/markdown"), Self.file("application/json")], tools: both).isEmpty)
        #expect(Self.ids(b, [Self.data("text/plain")], tools: both) == ["builtin:copy", "builtin:save"])
        #expect(Self.ids(b, [Self.data("image/png")], tools: ShareTools(copy: true, save: false)) == ["builtin:copy"])
        #expect(Self.ids(b, [Self.data("application/pdf")], tools: ShareTools(copy: true, save: false)).isEmpty)
        let openIn = try #require(b.shareTargets(for: [Self.file("application/json")], caller: Self.caller("x"), tools: Self.none).first)
        #expect(openIn == ShareTarget(id: "builtin:open-in:viewer.desktop", name: "Open in Viewer", icon: "viewer", kind: .builtin))
    }

    @Test func theDecisionGoesByThePrecedence() async throws {
        let s = Setup()
        s.target("a.desktop", types: "text/*")
        s.target("b.desktop", types: "text/plain")
        s.target("c.desktop", types: "image/*")
        let b = try s.broker(config: "[Routes]\nx-schemebridge/share from org.example.*=b.desktop:share\n")
        let subject = OpenSubject.share(ShareSubject(items: [Self.data("text/plain")], tools: Self.none))
        let other = Self.caller("org.other.App"), routed = Self.caller("org.example.App")
        let question = HandlerQuestion(subject: ShareTargetID.choiceSubject, candidates: [
            ChooserCandidate(id: "a.desktop:share", name: "Share with a.desktop", icon: "a.desktop-icon"),
            ChooserCandidate(id: "b.desktop:share", name: "Share with b.desktop", icon: "b.desktop-icon"),
        ])
        #expect(try b.decide(subject, requested: nil, ask: false, caller: other) == .ask(question))
        #expect(try b.decide(subject, requested: nil, ask: false, caller: routed) == .open("b.desktop:share", .route(callerPattern: "org.example.*")))
        // `ask` shows the sheet even then.
        #expect(try b.decide(subject, requested: nil, ask: true, caller: routed) == .ask(question))
        // "Always" remembers for that caller only.
        #expect(try await b.settle(.picked("a.desktop:share", always: true), to: question, caller: other, warn: { Issue.record("\($0)") }) == "a.desktop:share")
        #expect(try b.decide(subject, requested: nil, ask: false, caller: other) == .open("a.desktop:share", .remembered))
        #expect(try b.decide(subject, requested: nil, ask: false, caller: Self.caller("org.third.App")) == .ask(question))
        #expect(try await b.forgetChoice(caller: "org.other.App", subject: ShareTargetID.choiceSubject))
        // Named: only when it accepts the items.
        #expect(try b.decide(subject, requested: "b.desktop:share", ask: false, caller: other) == .open("b.desktop:share", .requested))
        #expect(throws: OpenFailure.self) { try b.decide(subject, requested: "c.desktop:share", ask: false, caller: other) }
        // Nothing accepts: NoTarget, never a silent success.
        let pdf = OpenSubject.share(ShareSubject(items: [Self.data("application/pdf")], tools: Self.none))
        do {
            _ = try b.decide(pdf, requested: nil, ask: false, caller: other)
            Issue.record("no NoTarget")
        } catch {
            #expect(error.kind == .noTarget)
        }
    }

    /// A device named as the target is decided from the devices alone: accepted when it can
    /// receive now (whatever the apps declare), `NoTarget` when it cannot; no tool is looked for.
    @Test func aNamedDeviceIsDecidedFromTheDevices() throws {
        let s = Setup()
        s.target("a.desktop", types: "text/*")
        let b = try s.broker()
        let phone = NearbyDevice(id: "phone_1", name: "Phone", reachable: true, paired: true, canReceive: true)
        let away = NearbyDevice(id: "away_2", name: "Away", reachable: false, paired: true, canReceive: true)
        let subject = { (items: [ShareItemSummary]) in OpenSubject.share(ShareSubject(items: items, tools: ShareTools(copy: false, save: false, devices: [phone, away]))) }
        for items in [[Self.data("application/x-nothing-takes-this")], [Self.file("text/plain"), Self.data("image/png")]] {
            #expect(try b.decide(subject(items), requested: "phone_1", ask: true, caller: Self.caller("x")) == .open("phone_1", .requested))
            for other in ["away_2", "unknown_3"] {
                #expect(throws: OpenFailure.self) { try b.decide(subject(items), requested: other, ask: false, caller: Self.caller("x")) }
            }
        }
        // The built-ins' tools are looked for only when the target may be one of them.
        let bin = s.tree.root + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: bin + "/xclip", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        let builtins = BuiltinActivities(environment: ["PATH": bin, "DISPLAY": ":9"])
        #expect(builtins.available(devices: [phone]).copy)
        #expect(builtins.available(devices: [phone], target: ShareTargetID("phone_1")) == ShareTools(copy: false, save: false, devices: [phone]))
    }

    @Test func targetsAppearAndVanishLive() async throws {
        let s = Setup()
        let b = try s.broker(watch: true)
        defer { b.registry.close() }
        #expect(Self.ids(b, [Self.data("text/plain")]).isEmpty)
        s.target("late.desktop", types: "text/plain")
        #expect(await waitUntil(timeout: .seconds(20)) { Self.ids(b, [Self.data("text/plain")]) == ["late.desktop:share"] } != nil)
        unlink(s.tree.apps(1) + "/late.desktop")
        #expect(await waitUntil(timeout: .seconds(20)) { Self.ids(b, [Self.data("text/plain")]).isEmpty } != nil)
    }

    /// A warm start from the registry index keeps every declared target as parsed.
    @Test func targetsSurviveTheIndex() async throws {
        let tree = XDGTree()
        tree.entry(1, "notes.desktop", exec: "/bin/true", extra: "Actions=share;send;\n[Desktop Action share]\nName=Share\nIcon=notes\nExec=/bin/true %F\n"
            + "X-SchemeBridge-Share-Types=text/*;image/png\nX-SchemeBridge-Share-MaxItems=3\n[Desktop Action send]\nName=Send\nExec=/bin/echo\nX-SchemeBridge-Share-Types=*/*\n")
        await XDGTree.outlastTimestampMargin()
        let first = Registry(environment: tree.environment, watch: false)
        first.close()
        let warm = Registry(environment: tree.environment, watch: false)
        defer { warm.close() }
        let scanned = Registry(environment: tree.environment, watch: false, index: .disabled)
        #expect(warm.startup.usedIndex)
        let actions = try #require(warm.shareEntries().first?.shareActions)
        #expect(actions == scanned.shareEntries().first?.shareActions)
        #expect(actions == [ShareAction(action: "share", name: "Share", icon: "notes", exec: "/bin/true %F", types: ["text/*", "image/png"], maxItems: 3),
                            ShareAction(action: "send", name: "Send", icon: nil, exec: "/bin/echo", types: ["*/*"], maxItems: nil)])
    }

    @Test func targetIDs() {
        #expect(ShareTargetID("app.desktop:send-to")?.text == "app.desktop:send-to")
        #expect(ShareTargetID("builtin:open-in:v.desktop") == .openIn(desktopID: "v.desktop"))
        #expect(ShareTargetID("builtin:copy") == .copy)
        for bad in ["", "app.desktop", "app:share", "app.desktop:", "app.desktop:a b", "builtin:other", "builtin:open-in:x", "-x.desktop:a;b"] {
            #expect(ShareTargetID(bad) == nil, "\(bad)")
        }
        // Split at the last `:` byte: one a combining mark joins (no `:` character of its own) names no target either way.
        #expect(ShareTargetID("app.desktop:send:\u{301}") == nil)
        #expect(ShareTargetID("app.desktop:\u{301}send") == nil)
        #expect(ShareTargetID("a\u{301}.desktop:send") == .action(desktopID: "a\u{301}.desktop", action: "send"))
        #expect(ShareTargetID("_1be14178_4aad_4d5a_ad6f_854df042f997_") == .device("_1be14178_4aad_4d5a_ad6f_854df042f997_"))
        #expect(ShareTargetID("phone\u{301}") == nil)
    }
}
