import Foundation
import Glibc
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Issue 39, "Done when": with `LANG` unset (as under `env -i`), a file a device sent is asked
/// about and opened. A paired phone (``FakeKDEConnect``, through its trusted relay) sends a text
/// file; there is no notification server on the bus, so with `[Devices] OpenReceived=ask` (the
/// default) the service asks at once with the shipped dialog on a private Xvfb; a key picks the
/// second app, which opens the file (a read-only copy in its Inbox). The `open --ask` half is
/// `DefaultChooserTests.withoutALocaleTheChooserIsShownAndAKeyPicks`.
@Suite struct ReceivedFileDialogTests {
    /// A paired phone "Pixel 7" (its relay trusted), on a fixture started as `f` is.
    static func phone(_ f: ServiceFixture) async throws -> (FakeKDEConnect, URL) {
        let downloads = f.root.appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        #expect(try await f.dbusSend("CanOpenURL", "string:x-none:probe").succeeded)
        let engine = try await FakeKDEConnect(address: f.bus.address, name: "Pixel 7", answering: true)
        #expect(await Tools.eventually { (try? await FakeEngineTests.targets(f))?.contains("'_phone_'") == true }, "\(f.serviceLog.suffix(2000))")
        return (engine, downloads)
    }

    /// The chooser is told who sent the file (`received-from`: the device's name), so it can say
    /// "Pixel 7 sent a file. Open it with:".
    @Test func theChooserIsToldWhichDeviceSentTheFile() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.entry("org.example.Reader.desktop", "Name=Reader\nExec=\(try f.recorder("reader")) %f\nMimeType=text/plain;")
        try f.writeConfig("[Chooser]\nCommand=\(try f.chooser("asked", "head -n 1 | cut -f 1"))\n")
        let (engine, downloads) = try await Self.phone(f)
        defer { engine.stop() }
        let sent = downloads.appendingPathComponent("list.txt")
        try Data("eggs\n".utf8).write(to: sent)
        try engine.announceReceived("file://" + sent.path)
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: f.records.appendingPathComponent("reader.argv").path) },
                "\(f.serviceLog.suffix(3000))")
        #expect(f.chooserSaw("asked").contains("SCHEMEBRIDGE_CHOOSER_RECEIVED_FROM=Pixel 7\n"), "\(f.chooserSaw("asked"))")
        #expect(f.chooserSaw("asked").contains("SCHEMEBRIDGE_CHOOSER_KIND=type\n"), "\(f.chooserSaw("asked"))")
    }

    @Test func withoutLANGAFileADeviceSentIsAskedAboutAndOpened() async throws {
        let x = try Xvfb(width: 800, height: 600)
        defer { x.stop() }
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": x.display, "WAYLAND_DISPLAY": ""],
                                   unsetEnvironment: ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES"])
        defer { f.stop() }
        try FileManager.default.createSymbolicLink(atPath: f.bin.appendingPathComponent("schemebridge-dialog").path,
                                                   withDestinationPath: Built.packageRoot.appendingPathComponent("scripts/schemebridge-dialog").path)
        try f.entry("org.example.Reader.desktop", "Name=Reader\nExec=\(try f.recorder("reader")) %f\nMimeType=text/plain;")
        try f.entry("org.example.Writer.desktop", "Name=Writer\nExec=\(try f.recorder("writer")) %f\nMimeType=text/plain;")
        let (engine, downloads) = try await Self.phone(f)
        defer { engine.stop() }

        let sent = downloads.appendingPathComponent("shopping.txt")
        try Data("milk\nbread\n".utf8).write(to: sent)
        try engine.announceReceived("file://" + sent.path)
        let w = try #require(try await DialogRun.window(on: x, titled: "Open With"), "no chooser for the received file\n\(f.serviceLog.suffix(3000))")
        #expect(f.serviceLog.contains("no notification server with actions on the bus"), "\(f.serviceLog.suffix(2000))")
        try await DialogRun.type(["Down", "Return"], into: w, on: x)
        let argv = f.records.appendingPathComponent("writer.argv")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: argv.path) }, "Writer never ran\n\(f.serviceLog.suffix(3000))")
        let opened = String(decoding: (try? Data(contentsOf: argv)) ?? Data(), as: UTF8.self).split(separator: "\0").first.map(String.init) ?? ""
        #expect(opened.hasSuffix("/shopping.txt") && opened != sent.path, "not the Inbox copy: \(opened)")
        #expect((try? String(contentsOfFile: opened, encoding: .utf8)) == "milk\nbread\n")
        #expect(!FileManager.default.fileExists(atPath: f.records.appendingPathComponent("reader.argv").path))
    }
}
