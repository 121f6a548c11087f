import Foundation
import Testing
@testable import SchemeBridgeCore

/// How a decided share reaches its target, and what is done with what a device sent: the rules
/// the service carries out (its end-to-end tests: `ShareTests`, `DeviceShareTests`).
@Suite struct ShareDeliveryRuleTests {
    let file = ShareItemSummary(kind: .file, type: "image/png")
    let url = ShareItemSummary(kind: .url, type: ShareItemSummary.uriType)
    let text = ShareItemSummary(kind: .data, type: "text/plain")
    let png = ShareItemSummary(kind: .data, type: "image/png")

    @Test func urlsAreStoredAsURIsAndTextAndReadAsText() {
        let values = ShareItemSummary.pasteboardValues(url: "https://example.org/a")
        #expect(values.map(\.type) == ["text/x-uri", "text/plain"])
        #expect(values.allSatisfy { $0.bytes == Array("https://example.org/a".utf8) })
        #expect(url.readType == "text/plain" && png.readType == "image/png" && file.readType == "image/png")
        #expect(ShareItemSummary.pasteboardSlot(of: 3, in: [file, url, file, png]) == 1, "files are not on the pasteboard")
    }

    @Test func namesAreUsableFileNames() {
        #expect(ShareItemSummary.safeName("../../etc/passwd") == "passwd")
        #expect(ShareItemSummary.safeName("a\u{7}b\nc") == "abc")
        #expect(ShareItemSummary.safeName("..") == "" && ShareItemSummary.safeName("/") == "")
        #expect(ShareItemSummary.safeName(String(repeating: "é", count: 200)).utf8.count == 254, "at most 255 bytes, whole characters")
    }

    @Test func openInIsDoneOnStartAndActionsAreActivatedByName() {
        #expect(ShareTargetID.openIn(desktopID: "a.desktop").isDoneWhenStarted)
        #expect(!ShareTargetID.action(desktopID: "a.desktop", action: "send").isDoneWhenStarted)
        #expect(ShareTargetID.action(desktopID: "a.desktop", action: "send").activation == .activateAction("send"))
        #expect(ShareTargetID.openIn(desktopID: "a.desktop").activation == .open)
    }

    @Test func devicesGetFilesInOneSendThenTextAndURLs() {
        #expect(DeviceItemRoute.of(file, name: "") == .outboxFile(name: "document"))
        #expect(DeviceItemRoute.of(file, name: "cat.png") == .outboxFile(name: "cat.png"))
        #expect(DeviceItemRoute.of(url, name: "", url: "https://example.org") == .url("https://example.org"))
        #expect(DeviceItemRoute.of(text, name: "", bytes: Array("hello".utf8)) == .text("hello"))
        #expect(DeviceItemRoute.of(text, name: "", bytes: [0xFF, 0xFE]) == .outboxFile(name: nil), "text that is not UTF-8 goes as a file")
        #expect(DeviceItemRoute.of(text, name: "notes.txt") == .outboxFile(name: "notes.txt"), "text behind a descriptor goes as a file")
        #expect(DeviceItemRoute.of(png, name: "", bytes: [1, 2]) == .outboxFile(name: nil))
        #expect(DevicePayload.sends(files: ["/a", "/b"], others: [.text("t"), .url("u:x")]) == [.files(["/a", "/b"]), .text("t"), .url("u:x")])
        #expect(DevicePayload.sends(files: [], others: [.url("u:x")]) == [.url("u:x")])
    }

    @Test func theBuiltInsUseTheSessionsTools() throws {
        let tree = XDGTree(dataDirCount: 1)
        for tool in ["wl-copy", "xclip", "zenity"] {
            tree.write(tree.bin + "/" + tool, "#!/bin/sh\n")
            chmod(tree.bin + "/" + tool, 0o755)
        }
        let x11 = ["PATH": tree.bin, "DISPLAY": ":0"]
        #expect(BuiltinTools.clipboard(type: "image/png", environment: x11) == [tree.bin + "/xclip", "-selection", "clipboard", "-t", "image/png"])
        let wayland = ["PATH": tree.bin, "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"]
        #expect(BuiltinTools.clipboard(type: "text/plain", environment: wayland) == [tree.bin + "/wl-copy", "--type", "text/plain"])
        #expect(BuiltinTools.clipboard(type: "text/plain", environment: ["PATH": tree.bin]) == nil, "no display, no clipboard")
        #expect(BuiltinTools.saveDialog(name: "a.png", title: nil, environment: x11)
            == [tree.bin + "/zenity", "--file-selection", "--save", "--confirm-overwrite", "--title=Save to…", "--filename=a.png"])
        #expect(BuiltinTools.available(environment: ["PATH": "/nonexistent", "DISPLAY": ":0"], devices: []) == ShareTools(copy: false, save: false))
        #expect(BuiltinTools.savePath(fromDialogOutput: Array("/home/u/a.png\n".utf8)) == "/home/u/a.png")
        #expect(BuiltinTools.savePath(fromDialogOutput: Array("relative\n".utf8)) == nil)
        #expect(BuiltinTools.openDialog(title: nil, multiple: true, environment: x11)
            == [tree.bin + "/zenity", "--file-selection", "--title", "Choose a document", "--multiple", "--separator", "\n"])
        #expect(BuiltinTools.openDialog(title: "Pick", multiple: false, environment: ["PATH": "/nonexistent"]) == nil)
        #expect(BuiltinTools.paths(fromDialogOutput: Array("/a/b\nnoise\n/c d\n".utf8)) == ["/a/b", "/c d"])
    }

    @Test func whatADeviceSentIsOpenedAsTheModeSays() async throws {
        let tree = XDGTree(dataDirCount: 1)
        let engineDir = try #require(realpath(tree.root, nil).map { p in defer { free(p) }; return String(cString: p) })
        let link = engineDir + "/kdeconnect-link00.txt", plain = engineDir + "/kdeconnect-plain0.txt", urlFile = engineDir + "/kdeconnect-url000.txt"
        tree.write(plain, "just some words\n")
        tree.write(urlFile, "  mailto:someone@example.org \n")
        symlink(urlFile, link)
        let places = ReceivedPlaces(downloadDirectories: [engineDir + "/Downloads"], textDirectory: engineDir)
        let read = { (path: String) throws(ServiceFailure) -> String? in
            let fd = try places.open(.text(path))
            return ReceivedShare.url(inDescriptor: fd)
        }
        #expect(try read(urlFile) == "mailto:someone@example.org")
        #expect(try read(plain) == nil)
        #expect(throws: ServiceFailure.self, "a symlink is not followed") { try read(link) }

        let mail = { (scheme: String) in scheme == "mailto" }
        #expect(try await ReceivedShare.text(urlFile).action(mode: .never, urlInText: read, opensScheme: mail) == .leave)
        #expect(try await ReceivedShare.text(urlFile).action(mode: .ask, urlInText: read, opensScheme: mail) == .openURL("mailto:someone@example.org", ask: true))
        // Text that is no URL an app opens is a document like any file: no type is forced on its path.
        #expect(try await ReceivedShare.text(urlFile).action(mode: .default, urlInText: read, opensScheme: { _ in false })
            == .openFile(.text(urlFile), ask: false), "a URL no app opens is text")
        #expect(try await ReceivedShare.text(plain).action(mode: .default, urlInText: read, opensScheme: mail) == .openFile(.text(plain), ask: false))
        #expect(try await ReceivedShare.file("/x/a.png").action(mode: .ask, urlInText: read, opensScheme: mail) == .openFile(.file("/x/a.png"), ask: true))
    }
}
