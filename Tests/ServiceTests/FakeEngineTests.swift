import DBus
import DBusTestSupport
import Foundation
import Glibc
import Testing

/// Issue 37, "Anyone can be KDE Connect": a program that owns a device engine's bus name is the
/// engine only when it is the engine's own program installed where only root can change it
/// (``EngineRelay`` gives each stand-in a real process the service judges). A plain script or a
/// copy a user's program could rewrite shows no devices, takes nothing the user shares and makes
/// the service open nothing; a protected engine is believed only for files where it writes them.
@Suite(.serialized) struct FakeEngineTests {
    /// ShareTargets for `type`, as gdbus prints it.
    static func targets(_ fixture: ServiceFixture, _ type: String = "text/plain") async throws -> String {
        try await Tools.run(["gdbus", "call", "--address", fixture.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                             "--method", "io.github.schemebridge.Share1.ShareTargets", "['\(type)']"], timeout: .seconds(300)).stdout
    }

    @Test(arguments: [EngineRelay.Kind.pythonScript, .kdeconnectOfAnotherUser])
    func aScriptOrAnUnprotectedCopyIsNotKDEConnect(_ kind: EngineRelay.Kind) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        let texts = try fixture.recorder("texts"), files = try fixture.recorder("files")
        try fixture.entry("org.example.Notes.desktop", "Name=Notes\nExec=\(texts) %f\nMimeType=text/plain;")
        try fixture.entry("org.example.Files.desktop", "Name=Files\nExec=\(files) %f\nMimeType=application/octet-stream;")
        try fixture.writeConfig("[Devices]\nOpenReceived=default\n")
        let downloads = fixture.root.appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        // What the impostor "received": a private file, even one in the download folder.
        let secret = downloads.appendingPathComponent("secret-notes.txt")
        try Data("my private notes".utf8).write(to: secret)
        #expect(try await fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded)

        let impostor = try await FakeKDEConnect(address: fixture.bus.address, name: "Phone", answering: true, relay: kind)
        defer { impostor.stop() }
        let refused = await Tools.eventually { fixture.serviceLog.contains("org.kde.kdeconnect is owned by") && fixture.serviceLog.contains("which is not KDE Connect") }
        #expect(refused, "\(fixture.serviceLog.suffix(2000))")
        // No device in the sheet, and nothing shared reaches it.
        #expect(!(try await Self.targets(fixture)).contains("_phone_"))
        let share = try await ShareTests.share(fixture, #"[{"text": "for the phone"}]"#, #"{"target": "_phone_"}"#)
        #expect(share["error"] as? String == "io.github.schemebridge.SchemeBridge1.Error.NoTarget", "\(share)")
        #expect(impostor.calls.list.withLock { $0.isEmpty })
        // What it says a device sent is not opened.
        try impostor.announceReceived("file://" + secret.path)
        try impostor.announceReceived(secret.path)
        impostor.stop()

        // The same stand-in as a protected kdeconnectd is the engine: its device is listed and what
        // it announces from its download folder opens — after (in order) what the impostor
        // announced would have: so the impostor's file, had it opened, would show by now.
        let engine = try await FakeKDEConnect(address: fixture.bus.address, name: "Phone", answering: true)
        defer { engine.stop() }
        #expect(await Tools.eventually { (try? await Self.targets(fixture))?.contains("'_phone_'") == true }, "\(fixture.serviceLog.suffix(2000))")
        let good = downloads.appendingPathComponent("photo.bin")
        try Data([1, 2, 3]).write(to: good)
        try engine.announceReceived("file://" + good.path)
        let argv = try #require(await fixture.recordedArgv("files"), "\(fixture.serviceLog.suffix(3000))")
        #expect(argv.last?.hasSuffix("/photo.bin") == true, "\(argv)")
        #expect(!FileManager.default.fileExists(atPath: fixture.records.appendingPathComponent("texts.argv").path), "the impostor's file was opened")
        #expect(!fixture.serviceLog.contains("with org.example.Notes"), "\(fixture.serviceLog.suffix(3000))")
    }

    /// A protected engine is believed only for what is where it writes: a file outside its
    /// download folder, a symlink in it (to a file or a folder outside), and "text" that is not
    /// its own text file are refused, each with a warning; the next good file still opens.
    @Test func anEngineIsBelievedOnlyForWhatIsWhereItWrites() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        let texts = try fixture.recorder("texts"), files = try fixture.recorder("files")
        try fixture.entry("org.example.Notes.desktop", "Name=Notes\nExec=\(texts) %f\nMimeType=text/plain;")
        try fixture.entry("org.example.Files.desktop", "Name=Files\nExec=\(files) %f\nMimeType=application/octet-stream;")
        try fixture.writeConfig("[Devices]\nOpenReceived=default\n")
        let downloads = fixture.root.appendingPathComponent("Downloads").path
        let ssh = fixture.root.appendingPathComponent(".ssh").path
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: ssh, withIntermediateDirectories: true)
        try Data("PRIVATE KEY".utf8).write(to: URL(fileURLWithPath: ssh + "/id_rsa"))
        try Data("todo://delete?all=1".utf8).write(to: URL(fileURLWithPath: fixture.root.path + "/kdeconnect-AbC123.txt"))
        symlink(ssh + "/id_rsa", downloads + "/key.txt")
        symlink(ssh, downloads + "/folder")
        #expect(try await fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded)
        let engine = try await FakeKDEConnect(address: fixture.bus.address, name: "Phone", answering: true)
        defer { engine.stop() }
        #expect(await Tools.eventually { (try? await Self.targets(fixture))?.contains("'_phone_'") == true }, "\(fixture.serviceLog.suffix(2000))")
        for argument in ["file://" + ssh + "/id_rsa", "file://" + downloads + "/key.txt", "file://" + downloads + "/folder/id_rsa",
                         ssh + "/id_rsa", fixture.root.path + "/kdeconnect-AbC123.txt"] {
            try engine.announceReceived(argument)
        }
        try Data([0, 9, 255]).write(to: URL(fileURLWithPath: downloads + "/good.bin"))
        try engine.announceReceived("file://" + downloads + "/good.bin")
        let argv = try #require(await fixture.recordedArgv("files"), "\(fixture.serviceLog.suffix(3000))")
        #expect(argv.last?.hasSuffix("/good.bin") == true, "\(argv)")
        #expect(!FileManager.default.fileExists(atPath: fixture.records.appendingPathComponent("texts.argv").path), "\(fixture.serviceLog.suffix(3000))")
        let log = fixture.serviceLog
        let refusals = log.components(separatedBy: "is not where the engine puts what devices send").count - 1
        #expect(refusals == 4, "\(log.suffix(4000))")  // outside, folder link, text outside, text not in the engine's folder
        #expect(log.contains("cannot open the received file \(downloads)/key.txt"), "\(log.suffix(4000))")  // the link itself: not followed
        let inbox = fixture.dataHome.appendingPathComponent("schemebridge/inbox").path
        let copies = FileManager.default.subpaths(atPath: inbox) ?? []
        #expect(!copies.contains { $0.hasSuffix("id_rsa") || $0.hasSuffix("key.txt") || $0.contains("kdeconnect-") }, "\(copies)")
    }

    /// A GSConnect impostor (gjs running a GSConnect-named file another uid owns, or a plain
    /// script) shows no device; a KDE Connect impostor does not push aside a real GSConnect's
    /// device (KDE Connect is preferred only when it is KDE Connect).
    @Test(arguments: [EngineRelay.Kind.gsconnectOfAnotherUser, .pythonScript])
    func aGSConnectImpostorShowsNoDeviceAndDoesNotShadowTheRealOne(_ kind: EngineRelay.Kind) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        #expect(try await fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded)
        let impostor = try await FakeGSConnect(address: fixture.bus.address, name: "Phone", relay: kind)
        defer { impostor.stop() }  // its relay folder goes even when a step throws
        let refused = await Tools.eventually { fixture.serviceLog.contains("org.gnome.Shell.Extensions.GSConnect is owned by") }
        #expect(refused && fixture.serviceLog.contains("which is not GSConnect"), "\(fixture.serviceLog.suffix(2000))")
        #expect(!(try await Self.targets(fixture)).contains("phone_1"))
        impostor.stop()

        let gsconnect = try await FakeGSConnect(address: fixture.bus.address, name: "Real phone")
        defer { gsconnect.stop() }
        #expect(await Tools.eventually { (try? await Self.targets(fixture))?.contains("'phone_1'") == true }, "\(fixture.serviceLog.suffix(2000))")
        let kde = try await FakeKDEConnect(address: fixture.bus.address, name: "Impostor", answering: true, relay: .pythonScript)
        defer { kde.stop() }
        #expect(await Tools.eventually { fixture.serviceLog.contains("which is not KDE Connect") }, "\(fixture.serviceLog.suffix(2000))")
        let listed = try await Self.targets(fixture)
        #expect(listed.contains("'phone_1'") && !listed.contains("_phone_"), "\(listed)")
    }
}
