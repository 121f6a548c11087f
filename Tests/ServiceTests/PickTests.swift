import Foundation
import Glibc
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// `PickDocument` and `ProvideDocuments` end to end (issue 25): a private bus, the real service,
/// python3-dbus pickers and providers (`Clients/Pick/*.py`) that the service really launches.
@Suite struct PickTests {
    /// A provider entry `scanner.desktop` that runs `Clients/Pick/provider.py` with `steps`.
    /// Returns the scheme the entry declares as a marker of this version of it (see ``untilLive(_:_:)``).
    @discardableResult
    static func provider(_ f: ServiceFixture, _ steps: [String], id: String = "scanner", extra: String = "") throws -> String {
        let argv = Clients.command("Pick/provider", [f.records.path] + steps).map { "\"\($0)\"" }.joined(separator: " ")
        let marker = "sbprov" + UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(12)
        try f.entry("\(id).desktop", "Name=\(id.capitalized)\nExec=\(argv)\nX-SchemeBridge-Provides=image/png;image/jpeg;\n"
                    + "MimeType=x-scheme-handler/\(marker);\n\(extra)")
        return marker
    }

    /// Waits until the running service has read the provider entry that declares `marker`: an
    /// entry written or rewritten while the service runs is live once its change is applied,
    /// which a loaded machine can delay (a pick right after the write could still run the old
    /// Exec: seen beside four CPU hogs).
    static func untilLive(_ f: ServiceFixture, _ marker: String) async {
        let live = await Tools.eventually { (try? await f.dbusSend("CanOpenURL", "string:\(marker):x"))?.stdout.contains("boolean true") == true }
        #expect(live, "the service never read the provider's entry declaring \(marker)")
    }

    /// Runs `Clients/Pick/picker.py` (through `app` when given, so the picker is that app).
    static func pick(_ f: ServiceFixture, types: [String] = ["image/png"], options: [String: Any] = ["provider": "scanner.desktop"],
                     gate: String = "", closeGate: String = "", app: String? = nil, python: String? = nil) async throws -> [String: Any] {
        let out = f.root.appendingPathComponent("picked-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: options), as: UTF8.self)
        let command = Clients.command("Pick/picker", [f.bus.address, types.joined(separator: ","), json, out.path,
                                                      gate.isEmpty ? "" : f.gate.file(gate), closeGate.isEmpty ? "" : f.gate.file(closeGate)])
        let r = try await Tools.run((app.map { [$0] } ?? []) + (python.map { [$0] } ?? [command[0]]) + command.dropFirst(), environment: Clients.serviceNames)
        var result = ReplyTests.json(r.stdout)
        result["out"] = out.path
        result["stderr"] = r.stderr
        return result
    }

    static func response(_ r: [String: Any]) -> [String: Any] {
        let all = r["responses"] as? [[String: Any]] ?? []
        #expect(all.count == 1, "exactly one Response: \(r)")
        return all.first ?? [:]
    }

    static func providerLog(_ f: ServiceFixture) -> String {
        (try? String(contentsOf: f.records.appendingPathComponent("provider.log"), encoding: .utf8)) ?? ""
    }

    @Test func aProvidersAnswerReachesTheCallerByteIdenticalReadOnlyAndFixed() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // 1 MiB: a PNG signature, then bytes of every value.
        let scan = f.root.appendingPathComponent("scan-store.png")
        let bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<(1 << 20) - 8).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        try Data(bytes).write(to: scan)
        try Self.provider(f, ["hold:" + f.gate.file("impostor-tried"), "answer:\(scan.path):image/png:scan.png"])
        async let picked = Self.pick(f, gate: "provider-rewrote")
        // A third process that learned the token cannot answer.
        let tokenFile = f.records.appendingPathComponent("provider.token")
        #expect(await Tools.eventually { ((try? String(contentsOf: tokenFile, encoding: .utf8)) ?? "").count == 64 })
        let token = try String(contentsOf: tokenFile, encoding: .utf8)
        let impostor = try await Tools.run(Clients.command("Pick/impostor", [f.bus.address, token, scan.path]))
        #expect(impostor.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == Contract.errorPrefix + "NotTheHandler", "\(impostor)")
        f.release("impostor-tried")
        #expect(await Tools.eventually { Self.providerLog(f).contains("rewritten") }, "\(Self.providerLog(f))")
        f.release("provider-rewrote")
        let result = try await picked
        let response = Self.response(result)
        #expect(response["code"] as? Int == 0, "\(result)")
        #expect(response["names"] as? [String] == ["scan.png"])
        #expect(response["types"] as? [String] == ["image/png"])
        #expect(response["provider"] as? String == "scanner.desktop")
        #expect(response["activation-token"] as? String == "provider-token-1")
        let doc = (response["docs"] as? [[String: Any]])?.first ?? [:]
        let received = try Data(contentsOf: URL(fileURLWithPath: result["out"] as! String).appendingPathComponent("0.bin"))
        #expect(received == Data(bytes), "the caller read \(received.count) bytes")
        #expect(doc["writable"] as? Bool == false && doc["reopenable"] as? Bool == false, "\(doc)")
        // The provider rewrote its file after answering: the caller's copy did not change.
        #expect(doc["same-after"] as? Bool == true, "\(doc)")
        #expect(try Data(contentsOf: scan).prefix(9) == Data("REWRITTEN".utf8))
        #expect(!f.serviceLog.contains(token), "the log carried the pick token")
    }

    @Test func whatTheCallerDidNotAskForIsRefusedAndTheRequestWaitsForAGoodAnswer() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let good = f.root.appendingPathComponent("good.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 100)).write(to: good)
        try Self.provider(f, ["fifo", "socket", "dir", "wrongtype", "liar", "two", "many", "answer:\(good.path)::good.png"])
        let result = try await Self.pick(f)
        let log = Self.providerLog(f)
        let lines = Dictionary(log.split(separator: "\n").map { l in (String(l.split(separator: " ")[0]), String(l)) }, uniquingKeysWith: { a, _ in a })
        let invalid = "org.freedesktop.DBus.Error.InvalidArgs"
        #expect(lines["fifo"]?.contains("\(invalid)") == true && lines["fifo"]?.contains("pipe (FIFO)") == true, "\(log)")
        #expect(lines["socket"]?.contains("\(invalid)") == true && lines["socket"]?.contains("a socket") == true, "\(log)")
        #expect(lines["dir"]?.contains("\(invalid)") == true && lines["dir"]?.contains("a directory") == true, "\(log)")
        #expect(lines["wrongtype"]?.contains("\(invalid)") == true && lines["wrongtype"]?.contains("did not ask for") == true, "\(log)")
        #expect(lines["liar"]?.contains("\(invalid)") == true && lines["liar"]?.contains("its content is") == true, "\(log)")
        #expect(lines["two"]?.contains("\(invalid)") == true && lines["two"]?.contains("multiple is false") == true, "\(log)")
        // More descriptors than the bus takes in one message never reach the service: refused
        // at once (the bus drops the connection at 17; libdbus cannot even build 10,000).
        for step in ["many17", "many10000"] {
            let words = lines[step]?.split(separator: " ") ?? []
            #expect(words.count > 2 && words[1] != "ok" && (Double(words[2]) ?? 99) < 10, "\(step): \(log)")
        }
        #expect(lines["answer"] == "answer ok", "\(log)")
        let response = Self.response(result)
        #expect(response["code"] as? Int == 0, "\(result)")
        #expect(response["types"] as? [String] == ["image/png"] && response["names"] as? [String] == ["good.png"], "\(response)")
    }

    @Test func aCancelIsCodeOneAndAProviderThatExitsIsCodeTwo() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try Self.provider(f, ["cancel"])
        let cancelled = Self.response(try await Self.pick(f))
        #expect(cancelled["code"] as? Int == 1, "\(cancelled)")
        await Self.untilLive(f, try Self.provider(f, ["exit"], id: "quitter"))
        let failed = Self.response(try await Self.pick(f, options: ["provider": "quitter.desktop"]))
        #expect(failed["code"] as? Int == 2, "\(failed)")
        #expect(failed["error-name"] as? String == Contract.errorPrefix + "HandlerExited", "\(failed)")
    }

    @Test func aPickIsRefusedUpFrontForBadTypesAndProvidersOfOtherTypes() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try Self.provider(f, ["exit"])
        let badType = try await Self.pick(f, types: ["not a type"])
        #expect(badType["error"] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(badType)")
        let otherType = try await Self.pick(f, types: ["text/plain"])
        #expect(otherType["error"] as? String == Contract.errorPrefix + "InvalidHandler", "\(otherType)")
    }

    @Test func theSheetListsProvidersAndFilesAndARememberedChoiceSkipsIt() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let good = f.root.appendingPathComponent("good.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 2, count: 10)).write(to: good)
        try Self.provider(f, ["answer:\(good.path):image/png:one.png"])
        try f.entry("notes.desktop", "Name=Notes\nExec=/bin/true\nX-SchemeBridge-Provides=text/plain;\n")
        let sheet = try f.chooser("sheet", "printf 'scanner.desktop\\talways\\n'")
        try f.writeConfig("[Chooser]\nCommand=\(sheet)\n")
        let editor = try PasteboardCLIWorld.app(f, "editor", "org.example.Editor")
        // The editor's own program (the system's python is every script's: issue 37, nothing is remembered for it).
        let python = try f.pythonNamed("editor-python")
        let first = Self.response(try await Self.pick(f, options: ["title": "Insert a scan"], app: editor, python: python))
        #expect(first["code"] as? Int == 0 && first["provider"] as? String == "scanner.desktop", "\(first)")
        let saw = f.chooserSaw("sheet")
        #expect(saw.contains("scanner.desktop\tScanner\t") && saw.contains("io.github.schemebridge.Files.desktop\tFiles…\t"), "\(saw)")
        #expect(!saw.contains("notes.desktop"), "\(saw)")
        #expect(saw.contains("SCHEMEBRIDGE_CHOOSER_KIND=pick") && saw.contains("SCHEMEBRIDGE_CHOOSER_SUBJECT=pick:image/png")
                && saw.contains("SCHEMEBRIDGE_CHOOSER_TITLE=Insert a scan"), "\(saw)")
        // Remembered ("always"): the second pick goes straight to the scanner.
        let second = Self.response(try await Self.pick(f, options: [:], app: editor, python: python))
        #expect(second["code"] as? Int == 0 && second["provider"] as? String == "scanner.desktop", "\(second)")
        #expect(f.chooserRuns("sheet") == 1)
    }

    @Test func theCLIWritesWhatWasPickedIntoAFolderOrPrintsCopies() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let scan = f.root.appendingPathComponent("store.png")
        let bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 3, count: 5000)
        try Data(bytes).write(to: scan)
        try Self.provider(f, ["answer:\(scan.path):image/png:../scan.png"])
        let cli = try Built.executable("schemebridge")
        let env = ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "XDG_RUNTIME_DIR": f.root.path]
        let dir = f.root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: dir.appendingPathComponent("scan.png"))
        let written = try await Tools.run([cli, "pick", "--type", "image/png", "--provider", "scanner.desktop", "--output", dir.path], environment: env)
        #expect(written.status == 0, "\(written)")
        // Never over an existing file, never outside the folder.
        #expect(written.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == dir.path + "/scan (2).png", "\(written)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("scan (2).png")) == Data(bytes))
        #expect(try String(contentsOf: dir.appendingPathComponent("scan.png"), encoding: .utf8) == "mine")
        // The provider rewrites its file after answering: restore it once it did.
        #expect(await Tools.eventually { Self.providerLog(f).contains("rewritten") })
        try Data(bytes).write(to: scan)
        let printed = try await Tools.run([cli, "pick", "--type", "image/*", "--provider", "scanner.desktop", "--print", "--json"], environment: env)
        #expect(printed.status == 0, "\(printed)")
        let doc = ((ReplyTests.json(printed.stdout)["documents"] as? [[String: Any]]) ?? []).first ?? [:]
        let path = doc["path"] as? String ?? ""
        #expect(path.hasPrefix(f.root.path + "/schemebridge-pick-") && doc["type"] as? String == "image/png", "\(printed)")
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        await Self.untilLive(f, try Self.provider(f, ["cancel"]))
        let cancelled = try await Tools.run([cli, "pick", "--provider", "scanner.desktop"], environment: env)
        #expect(cancelled.status == 5, "\(cancelled)")
    }

    /// "Files…" asks the desktop's file chooser portal when one runs (here a stand-in that
    /// answers as if the user chose two files).
    @Test func filesAsksTheFileChooserPortalWhenOneRuns() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let a = f.root.appendingPathComponent("first scan.png"), b = f.root.appendingPathComponent("second.png")
        for (url, fill) in [(a, UInt8(1)), (b, UInt8(2))] {
            try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: fill, count: 64)).write(to: url)
        }
        let record = f.records.appendingPathComponent("portal.json")
        let portal = try Tools.spawn(Clients.command("Pick/portal", [f.bus.address, record.path, "\(a.path.replacing(" ", with: "%20")),\(b.path)"]))
        defer { portal.terminate() }
        #expect(await ReplyTests.nameIsOwned(f, "org.freedesktop.portal.Desktop"))
        let result = try await Self.pick(f, types: ["image/*"], options: ["provider": "io.github.schemebridge.Files.desktop", "multiple": true, "title": "Two scans"])
        let response = Self.response(result)
        #expect(response["code"] as? Int == 0, "\(result)\n\(f.serviceLog)")
        #expect(response["names"] as? [String] == ["first scan.png", "second.png"], "\(response)")
        #expect(response["provider"] as? String == "io.github.schemebridge.Files.desktop")
        let asked = ReplyTests.json((try? String(contentsOf: record, encoding: .utf8)) ?? "")
        let options = asked["options"] as? [String: Any] ?? [:]
        #expect(asked["title"] as? String == "Two scans" && options["multiple"] as? Bool == true, "\(asked)")
        #expect("\(options["filters"] ?? "")".contains("image/*"), "\(asked)")
    }

    /// A DBusActivatable provider gets `Activate` with `pick-token` (and the caller's
    /// activation token) in `platform_data`, and answers from its bus name; one that leaves the
    /// bus without answering fails the pick.
    @Test func aDBusActivatedProviderAnswersWithItsPlatformDataToken() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Scans.desktop", "Name=Scans\nDBusActivatable=true\nX-SchemeBridge-Provides=image/png;\n")
        let scan = f.root.appendingPathComponent("s.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 5, count: 100)).write(to: scan)
        let record = f.records.appendingPathComponent("platform.json")
        for mode in ["answer", "leave"] {
            let app = try Tools.spawn(Clients.command("Pick/activated-provider", [f.bus.address, record.path, mode, scan.path]))
            defer { app.terminate() }
            #expect(await ReplyTests.nameIsOwned(f, "org.example.Scans"))
            let response = Self.response(try await Self.pick(f, options: ["provider": "org.example.Scans.desktop", "activation-token": "caller-token-9"]))
            let platform = ReplyTests.json((try? String(contentsOf: record, encoding: .utf8)) ?? "")
            #expect((platform["pick-token"] as? String)?.count == 64 && platform["activation-token"] as? String == "caller-token-9", "\(platform)")
            if mode == "answer" {
                #expect(response["code"] as? Int == 0 && response["names"] as? [String] == ["from-service.png"], "\(response)")
            } else {
                #expect(response["code"] as? Int == 2 && response["error-name"] as? String == Contract.errorPrefix + "HandlerExited", "\(response)")
            }
            // The next provider is not started before this one has left the bus: its name would be
            // owned by this one when the next pick asks (terminate returns at once), and free when
            // Activate is sent, before the next one has it (ServiceUnknown, seen at load 100).
            app.terminate()
            #expect(await ReplyTests.nameIsOwned(f, "org.example.Scans", false), "the \(mode) provider is still on the bus")
        }
    }

    /// A provider started without the user (named here) is a launch: the launch rate applies,
    /// so a program cannot start providers in a loop. Fails on a service that does not count them.
    @Test func namedProvidersCountAgainstTheLaunchRate() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.writeConfig("[Policy]\nMaxLaunchRate=0.01\nLaunchBurst=2\nUnidentifiedLaunchRate=0.01\nUnidentifiedLaunchBurst=2\n")
        try Self.provider(f, ["cancel"])
        for _ in 0..<2 { #expect(Self.response(try await Self.pick(f))["code"] as? Int == 1) }
        let third = try await Self.pick(f)
        #expect(third["error"] as? String == Contract.errorPrefix + "RateLimited", "\(third)")
    }
}
