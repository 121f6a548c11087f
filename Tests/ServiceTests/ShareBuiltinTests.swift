import DBusTestSupport
import Foundation
import SchemeBridgeContract
import Testing

/// The built-in activities end to end: "Open in <app>" reaches an app that declares only
/// `MimeType=` (through the document path), "Copy" puts text on the X11 clipboard (read back with
/// `xclip -o` on Xvfb), and hostile sizes get clear errors.
@Suite struct ShareBuiltinTests {
    @Test func openInReachesAnAppWithOnlyMimeType() async throws {
        let f = try ServiceFixture()
        let viewer = try f.recorder("viewer")
        try f.entry("viewer.desktop", "Name=Viewer\nExec=\(viewer) %f\nMimeType=text/plain;")
        let notes = f.root.appendingPathComponent("notes.md").path
        try "# notes\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let targets = try await Tools.run(["gdbus", "call", "--address", f.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                           "--method", "\(ShareContract.interface.rawValue).\(ShareContract.shareTargets.rawValue)", "['text/markdown']"])
        #expect(targets.stdout.contains("('builtin:open-in:viewer.desktop', 'Open in Viewer', '', 'app')"), "\(targets.stdout)\(targets.stderr)")
        let out = try await ShareTests.share(f, #"[{"file": "\#(notes)"}]"#, #"{"target": "builtin:open-in:viewer.desktop"}"#)
        #expect(ShareTests.responses(out).first?["code"] as? Int == 0, "\(out)\n\(f.serviceLog)")
        let argv = try #require(await f.recordedArgv("viewer"))
        #expect(argv.count == 1 && argv[0] == f.dataHome.path + "/schemebridge/inbox/viewer/notes.md", "\(argv)")
        #expect((try? String(contentsOfFile: argv.first ?? "", encoding: .utf8)) == "# notes\n")
    }

    @Test func copyPutsTextOnTheClipboard() async throws {
        let xclip = try Tools.path(of: "xclip")
        let x = try Xvfb(width: 320, height: 240)
        defer { x.stop() }
        let f = try ServiceFixture(extraEnvironment: ["DISPLAY": x.display, "WAYLAND_DISPLAY": ""])
        let out = try await ShareTests.share(f, #"[{"text": "copied by SchemeBridge ✓"}]"#, #"{"target": "builtin:copy"}"#)
        let response = try #require(ShareTests.responses(out).first, "\(out)\n\(f.serviceLog)")
        #expect(response["code"] as? Int == 0 && (response["results"] as? [String: String])?["target"] == "builtin:copy")
        let pasted = try await Tools.run([xclip, "-o", "-selection", "clipboard"], environment: ["DISPLAY": x.display])
        #expect(pasted.stdout == "copied by SchemeBridge ✓", "\(pasted.stdout)\(pasted.stderr)")
        // Without a display there is no Copy: naming it is NoTarget.
        let g = try ServiceFixture(extraEnvironment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(try await ShareTests.share(g, #"[{"text": "x"}]"#, #"{"target": "builtin:copy"}"#)["error"] as? String == ContractError.noTarget.name.rawValue)
    }

    /// 1 GiB of data (a descriptor) is over the caller's pasteboard quota: a clear error at
    /// once, and the service does not grow by anything near it.
    @Test func aGibibyteOfDataIsAClearErrorWithBoundedMemory() async throws {
        let f = try ServiceFixture()
        let program = try ShareTests.target(f, "big")
        try ShareTests.entry(f, "big.desktop", types: "*/*", program: program)
        _ = try await f.dbusSend("CanOpenURL", "string:x:y")
        let pid = try #require(await f.servicePID())
        func rss() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        let before = rss()
        let out = try await ShareTests.share(f, #"[{"type": "application/octet-stream", "bytes": 1073741824}]"#, #"{"target": "big.desktop:share"}"#)
        #expect(out["error"] as? String == ContractError.quotaExceeded.name.rawValue, "\(out)")
        #expect(rss() - before < 64 * 1024, "the service grew by \(rss() - before) KiB")
        #expect(await f.recordedArgv("big", timeout: .seconds(1)) == nil)
    }
}
