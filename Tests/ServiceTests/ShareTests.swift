import DBusTestSupport
import Foundation
import SchemeBridgeContract
import Testing

/// `io.github.schemebridge.Share1` end to end on a private bus, with real target processes that
/// record what they received: files in the target's Inbox (byte-identical, read-only), data
/// through a pasteboard only the target can read, the Response (shared, cancelled, failed),
/// `NoTarget`, `InvalidArgs` for hostile items, targets appearing and vanishing live.
@Suite struct ShareTests {
    /// A target program `name`: records its argv (NUL-separated), its share environment and what
    /// its pasteboard holds (read through `Clients/Share/reader.py`), then runs `body`.
    @discardableResult
    static func target(_ f: ServiceFixture, _ name: String, body: String = "") throws -> String {
        let path = f.bin.appendingPathComponent(name).path
        let r = f.records.path
        // Its pasteboard reader is another app than the sharing one (python under another name).
        let python = try f.pythonNamed("target-python")
        try """
            #!/bin/sh
            printf 'pasteboard=%s\\ntoken=%s\\nsource=%s\\n' "$SCHEMEBRIDGE_SHARE_PASTEBOARD" "$SCHEMEBRIDGE_REPLY_TOKEN" "$SCHEMEBRIDGE_SOURCE" > '\(r)/\(name).env'
            if [ -n "$SCHEMEBRIDGE_SHARE_PASTEBOARD" ]; then
              SB_NAME='\(ServiceFixture.name)' SB_PATH='\(ServiceFixture.path)' '\(python)' '\(Clients.path("Share/reader"))' "$DBUS_SESSION_BUS_ADDRESS" "$SCHEMEBRIDGE_SHARE_PASTEBOARD" > '\(r)/\(name).board'
            fi
            printf '%s\\0' "$@" > '\(r)/\(name).argv.tmp'
            mv '\(r)/\(name).argv.tmp' '\(r)/\(name).argv'
            \(body)
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// An entry `id` with one share action `share` accepting `types`, running `program`.
    static func entry(_ f: ServiceFixture, _ id: String, types: String, program: String, extra: String = "") throws {
        try f.entry(id, "Name=\(id)\nExec=/bin/false\n\(extra)Actions=share;\n\n[Desktop Action share]\nName=Send to \(id)\nIcon=send\nExec=\(program) %F\nX-SchemeBridge-Share-Types=\(types)")
    }

    /// Runs `Clients/Share/sharer.py` with `items` and `options` (JSON texts) under `python`
    /// (another app for each name); its JSON output.
    static func share(_ f: ServiceFixture, _ items: String, _ options: String = "{}", python: String = Tools.systemPython) async throws -> [String: Any] {
        let r = try await Tools.run([python, Clients.path("Share/sharer"), f.bus.address, items, options], environment: Clients.serviceNames)
        #expect(r.status == 0, "\(r.stderr)")
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? ["unparsed": r.stdout + r.stderr]
    }

    static func responses(_ out: [String: Any]) -> [[String: Any]] { out["responses"] as? [[String: Any]] ?? [] }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func filesAndDataReachTheTargetAndNobodyElse() async throws {
        let f = try ServiceFixture()
        let program = try Self.target(f, "notes")
        try Self.entry(f, "notes.desktop", types: "image/*;text/plain;", program: program)
        let photo = f.root.appendingPathComponent("photo.png").path
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(FileManager.default.createFile(atPath: photo, contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bytes)))
        let out = try await Self.share(f, #"[{"file": "\#(photo)"}, {"text": "a line of text"}]"#, #"{"target": "notes.desktop:share"}"#)
        let responses = Self.responses(out)
        #expect(responses.count == 1, "\(out)\n\(f.serviceLog)")
        #expect(responses.first?["code"] as? Int == 0)
        #expect((responses.first?["results"] as? [String: String])?["target"] == "notes.desktop:share")
        let argv = try #require(await f.recordedArgv("notes"))
        #expect(argv.count == 1 && argv[0].hasPrefix(f.dataHome.path + "/schemebridge/inbox/notes/"), "\(argv)")
        let copy = try #require(argv.first)
        #expect(FileManager.default.contents(atPath: copy) == FileManager.default.contents(atPath: photo))
        let mode = try #require(try? FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int)
        #expect(mode & 0o222 == 0, "the Inbox copy is writable: \(String(mode, radix: 8))")
        let env = f.recordedEnv("notes")
        let board = try #require(env.split(separator: "\n").first { $0.hasPrefix("pasteboard=") }.map { String($0.dropFirst(11)) })
        #expect(!board.isEmpty && env.contains("token=") && !env.contains("token=\n"), "\(env)")
        let read = Self.json((try? String(contentsOf: f.records.appendingPathComponent("notes.board"), encoding: .utf8)) ?? "")
        #expect(read["items"] as? [String] == ["a line of text"], "\(read)")
        // A stranger (another app: python under another name) cannot even find it.
        let stranger = try await Tools.run([try f.pythonNamed("stranger"), Clients.path("Share/reader"), f.bus.address, board], environment: Clients.serviceNames)
        #expect(Self.json(stranger.stdout)["error"] as? String == ContractError.noSuchPasteboard.name.rawValue, "\(stranger.stdout) \(stranger.stderr)")
    }

    @Test func nothingAcceptsIsNoTargetAndBadItemsAreInvalidArgs() async throws {
        let f = try ServiceFixture()
        try Self.entry(f, "photos.desktop", types: "image/*", program: try Self.target(f, "photos"))
        let noTarget = ContractError.noTarget.name.rawValue
        #expect(try await Self.share(f, #"[{"text": "words"}]"#)["error"] as? String == noTarget)
        #expect(try await Self.share(f, #"[{"type": "image/png", "data": "x"}]"#, #"{"target": "other.desktop:share"}"#)["error"] as? String == noTarget)
        let invalid = "org.freedesktop.DBus.Error.InvalidArgs"
        for items in [#"[]"#, #"[{"type": "not a type", "data": "x"}]"#, #"[{"url": "no scheme"}]"#, #"[{"url": "a:b", "both": "x"}]"#,
                      #"[{"repeat": 10000, "item": {"type": "image/png", "data": "x"}}]"#] {
            let out = try await Self.share(f, items)
            #expect(out["error"] as? String == invalid, "\(items): \(out)")
        }
        // A FIFO (nobody writing) and a socket as a file item: refused at once, no hang.
        let fifo = f.root.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let out = try await Self.share(f, #"[{"file": "\#(fifo)"}]"#)
        #expect(out["error"] as? String == invalid && (out["message"] as? String ?? "").contains("regular file"), "\(out)")
        let socket = try await Self.share(f, #"[{"socket": 1}]"#)
        #expect(socket["error"] as? String == invalid && (socket["message"] as? String ?? "").contains("inode/socket"), "\(socket)")
        #expect(await f.recordedArgv("photos", timeout: .seconds(1)) == nil)
    }

    /// The sheet is asked with the dialogs' message: the targets with their kinds, and what is
    /// shared — the text's first lines and the URL, the types, the count — with the sharer's
    /// token; cancelling launches nothing.
    @Test func cancellingTheSheetLaunchesNothing() async throws {
        let f = try ServiceFixture()
        try Self.entry(f, "notes.desktop", types: "text/plain", program: try Self.target(f, "notes"))
        let chooser = f.bin.appendingPathComponent("sheet").path
        try "#!/bin/sh\nhead -n 1 > '\(f.records.path)/sheet.in'\necho '{\"version\":1,\"answer\":\"cancelled\"}'\n".write(toFile: chooser, atomically: true, encoding: .utf8)
        chmod(chooser, 0o755)
        try f.writeConfig("[Chooser]\nCommand=\(chooser)\n")
        let out = try await Self.share(f, #"[{"text": "words\nmore words"}, {"url": "https://example.org/x"}]"#, #"{"activation-token": "tok-1"}"#)
        #expect(Self.responses(out).map { $0["code"] as? Int } == [1], "\(out)\n\(f.serviceLog)")
        let request = try JSONDecoder().decode(DialogRequest.self, from: Data(contentsOf: f.records.appendingPathComponent("sheet.in")))
        #expect(request.kind == .share && request.activationToken == "tok-1")
        #expect(request.candidates == [DialogRequest.Candidate(id: "notes.desktop:share", name: "Send to notes.desktop", icon: "send", kind: .app)])
        #expect(request.share?.types == ["text/plain", "text/x-uri"] && request.share?.count == 2)
        #expect(request.share?.items.map(\.kind) == [.text, .url])
        #expect(request.share?.items.first?.text == "words\nmore words" && request.share?.items.last?.url == "https://example.org/x", "\(request)")
        #expect(await f.recordedArgv("notes", timeout: .seconds(1)) == nil)
    }

    /// Hostile names and icons in a declaration reach the sheet as one tame line each: no tab,
    /// line break or control character inside a field, none starting with '-', names cut short.
    @Test func hostileNamesReachTheSheetTamed() async throws {
        let f = try ServiceFixture()
        let long = String(repeating: "ü", count: 3000)
        try f.entry("evil.desktop", "Name=Evil\nExec=/bin/false\nActions=a;b;\n\n[Desktop Action a]\nName=--display=:9\\tx\\ny\nIcon=-bad\nExec=/bin/true\n"
            + "X-SchemeBridge-Share-Types=text/plain\n\n[Desktop Action b]\nName=\(long)\nIcon=a\\tb\nExec=/bin/true\nX-SchemeBridge-Share-Types=*/*")
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("sheet", "exit 1"))\n")
        let out = try await Self.share(f, #"[{"text": "words"}]"#)
        #expect(Self.responses(out).map { $0["code"] as? Int } == [1], "\(out)")
        let lines = f.chooserSaw("sheet").split(separator: "\n").filter { $0.hasPrefix("evil.desktop:") }
        #expect(lines.count == 2, "\(f.chooserSaw("sheet"))")
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            #expect(fields.count == 4 && fields.allSatisfy { !$0.hasPrefix("-") }, "\(line)")
            #expect(fields.count > 1 && fields[1].utf8.count <= 257, "\(fields.count > 1 ? fields[1].utf8.count : 0) bytes")
        }
        #expect(lines.first.map(String.init) == "evil.desktop:a\t --display=:9 x y\t -bad\tapp", "\(lines)")
    }

    /// Without `[Chooser] Command=`: the shipped `schemebridge-dialog` (here a stand-in on PATH)
    /// is asked with the share's message: the targets with their kinds.
    @Test func theShippedDialogIsAskedWithTheSharesMessage() async throws {
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": ":424242", "WAYLAND_DISPLAY": ""])
        try f.writeConfig("[Chooser]\nSpareSheet=false\n")
        try Self.entry(f, "notes.desktop", types: "text/plain", program: try Self.target(f, "notes"))
        try f.chooser("schemebridge-dialog", "exit 1")
        #expect(Self.responses(try await Self.share(f, #"[{"text": "a"}]"#)).map { $0["code"] as? Int } == [1])
        #expect(f.chooserSaw("schemebridge-dialog").hasPrefix("notes.desktop:share\tSend to notes.desktop\tsend\tapp\n"), "\(f.chooserSaw("schemebridge-dialog"))")
    }

    @Test func aPickedTargetGetsItAndACrashIsAFailure() async throws {
        let f = try ServiceFixture()
        try Self.entry(f, "crash.desktop", types: "text/*", program: try Self.target(f, "crash", body: "kill -SEGV $$"))
        let chooser = f.bin.appendingPathComponent("sheet").path
        try "#!/bin/sh\nhead -n 1 > /dev/null\necho '{\"version\":1,\"answer\":\"chosen\",\"id\":\"crash.desktop:share\",\"always\":false}'\n"
            .write(toFile: chooser, atomically: true, encoding: .utf8)
        chmod(chooser, 0o755)
        try f.writeConfig("[Chooser]\nCommand=\(chooser)\n")
        let out = try await Self.share(f, #"[{"text": "words"}]"#)
        let response = try #require(Self.responses(out).first, "\(out)")
        #expect(response["code"] as? Int == 2)
        let results = response["results"] as? [String: String] ?? [:]
        #expect(results["error-name"] == Contract.errorPrefix + "HandlerExited" && results["target"] == "crash.desktop:share", "\(results)")
        #expect(results["error-message"]?.contains("status 139") == true, "\(results)")
    }

    /// A target answers with `Reply` (its token from the environment): its results come back,
    /// with the target named.
    @Test func aTargetMayReply() async throws {
        let f = try ServiceFixture()
        let cli = try Built.executable("schemebridge")
        try Self.entry(f, "notes.desktop", types: "text/plain", program: try Self.target(f, "notes", body: "'\(cli)' reply note=thanks || exit 3"))
        let out = try await Self.share(f, #"[{"text": "words"}]"#, #"{"target": "notes.desktop:share"}"#)
        let responses = Self.responses(out)
        #expect(responses.count == 1 && responses.first?["code"] as? Int == 0, "\(out)\n\(f.serviceLog)")
        #expect(responses.first?["results"] as? [String: String] == ["note": "thanks", "target": "notes.desktop:share"], "\(out)")
    }

    /// A `DBusActivatable` target gets `ActivateAction(action, [], platform_data)` and reads its
    /// pasteboard inside the call (another app than the sharing one); the share is done when it returns.
    @Test func anActivatableTargetGetsActivateAction() async throws {
        let f = try ServiceFixture()
        try f.entry("org.example.Notes.desktop", "Name=Notes\nDBusActivatable=true\nActions=share;\n\n[Desktop Action share]\nName=Add to Notes\nX-SchemeBridge-Share-Types=text/*")
        let record = f.records.appendingPathComponent("notes.json").path
        let app = try Tools.spawn([try f.pythonNamed("notes-app"), Clients.path("Share/activatable-app"), f.bus.address, record], environment: Clients.serviceNames)
        defer { app.terminate() }
        #expect(await ReplyTests.nameIsOwned(f, "org.example.Notes"))
        let out = try await Self.share(f, #"[{"text": "shared words"}]"#, #"{"target": "org.example.Notes.desktop:share"}"#)
        #expect(Self.responses(out).map { $0["code"] as? Int } == [0], "\(out)\n\(f.serviceLog)")
        let got = Self.json((try? String(contentsOfFile: record, encoding: .utf8)) ?? "")
        #expect(got["action"] as? String == "share" && got["text"] as? String == "shared words", "\(got)")
        #expect(Set(got["keys"] as? [String] ?? []).isSuperset(of: ["pasteboard", "pasteboard-path", "reply-token", "uris"]), "\(got)")
    }

    /// "Always" in the sheet skips it for that caller only; another app is still asked.
    @Test func aRememberedChoiceSkipsTheSheetForThatCallerOnly() async throws {
        let f = try ServiceFixture()
        try Self.entry(f, "a.desktop", types: "text/plain", program: try Self.target(f, "a"))
        try Self.entry(f, "b.desktop", types: "text/plain", program: try Self.target(f, "b"))
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("sheet", "printf 'b.desktop:share\\talways\\n'"))\n")
        let one = try f.pythonNamed("share-one"), two = try f.pythonNamed("share-two")
        func target(_ out: [String: Any]) -> String? { (Self.responses(out).first?["results"] as? [String: String])?["target"] }
        #expect(target(try await Self.share(f, #"[{"text": "1"}]"#, python: one)) == "b.desktop:share")
        #expect(f.chooserRuns("sheet") == 1)
        #expect(f.chooserSaw("sheet").contains("SCHEMEBRIDGE_CHOOSER_KIND=share\n"))
        #expect(target(try await Self.share(f, #"[{"text": "2"}]"#, python: one)) == "b.desktop:share")
        #expect(f.chooserRuns("sheet") == 1)
        #expect(target(try await Self.share(f, #"[{"text": "3"}]"#, python: two)) == "b.desktop:share")
        #expect(f.chooserRuns("sheet") == 2)
        // The target option still wins; ask shows the sheet again.
        #expect(target(try await Self.share(f, #"[{"text": "4"}]"#, #"{"target": "a.desktop:share"}"#, python: one)) == "a.desktop:share")
        _ = try await Self.share(f, #"[{"text": "5"}]"#, #"{"ask": true}"#, python: one)
        #expect(f.chooserRuns("sheet") == 3)
        let listed = try await CLITests.cli(f, "choices")
        #expect(listed.stdout.contains("\(one)\tx-schemebridge/share\tb.desktop:share\n"), "\(listed.stdout)\(listed.stderr)")
    }

    @Test func targetsAppearAndVanishLive() async throws {
        let f = try ServiceFixture()
        func targets() async throws -> String {
            try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                 "--method", "\(ShareContract.interface.rawValue).\(ShareContract.shareTargets.rawValue)", "['text/markdown']"]).stdout
        }
        #expect(try await targets().contains("@a(ssss) []"))
        try Self.entry(f, "md.desktop", types: "text/plain", program: "/bin/true")
        #expect(try await Tools.eventually { try await targets().contains("('md.desktop:share', 'Send to md.desktop', 'send', 'app')") })
        try FileManager.default.removeItem(at: f.applications.appendingPathComponent("md.desktop"))
        #expect(try await Tools.eventually { try await targets().contains("@a(ssss) []") })
        // Introspection is what dbus/ ships.
        let live = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply=literal", "--dest=\(ServiceFixture.name)",
                                        ServiceFixture.path, "org.freedesktop.DBus.Introspectable.Introspect"])
        let liveElement = ShippedInterface.element(live.stdout, ShareContract.interface.rawValue)
        let shipped = ShippedInterface.element(try ShippedInterface.file(ShareContract.interface.rawValue), ShareContract.interface.rawValue)
        #expect(liveElement != nil && liveElement == shipped, "\(live.stdout)")
    }
}
