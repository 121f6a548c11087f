import Foundation
import Testing
@testable import SchemeBridgeCore

/// A share's items as the core takes them in (``SharedItem/intake(_:keys:documents:runner:key:facts:)``),
/// what each is stored and shown as, what `ShareTargets` asks about, and the built-ins carried
/// out (``BuiltinActivities``). End to end: `ShareTests`, `ShareBuiltinTests`.
@Suite struct SharedItemTests {
    static let keys = ShareItemGrammar.Keys(file: "file", url: "url", type: "type", data: "data", name: "name", title: "title")
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]

    let tree = XDGTree(dataDirCount: 1)
    let documents: Documents
    let owner = Caller(busName: ":1.5", id: "org.example.Sharer")

    init() {
        documents = Documents(types: ContentTypeDatabase(mimeDirectories: ["/usr/share/mime"]), inbox: Inbox(root: tree.root + "/inbox"),
                              handlersAlongChain: { chain in (chain.first ?? "", []) })
    }

    @Test func itemsAreTakenInOrderFilesInspected() async throws {
        tree.writeBytes(tree.root + "/cat.png", Self.png)
        let file = HeldFD(reading: tree.root + "/cat.png")
        let facts: @Sendable (Int32, String) -> SharedFileFacts = { fd, name in
            SharedFileFacts(callerSandboxed: false, name: name, descriptor: nil, kernelPath: "/fd/\(fd)", atPath: nil, readable: false, excludedDirectories: [])
        }
        let items = try await SharedItem.intake([
            ["file": .descriptor(file)],
            ["url": .string("https://example.org/a"), "name": .string("../a link")],
            ["type": .string("text/plain"), "data": .bytes(Array("hi".utf8))],
        ], keys: Self.keys, documents: documents, runner: InlineRunner(), key: "org.example.Sharer", facts: facts)
        #expect(items.map(\.summary) == [ShareItemSummary(kind: .file, type: "image/png"), ShareItemSummary(kind: .url, type: ShareItemSummary.uriType),
                                         ShareItemSummary(kind: .data, type: "text/plain")])
        #expect(items.map(\.name) == ["cat.png", "a link", ""], "a file is named as opened; a given name is made safe")
        #expect(items[0].facts?.kernelPath == "/fd/\(file.rawValue)" && items[1].facts == nil, "a file's facts are found in the same look")
        #expect(items.map(\.descriptor) == [file.rawValue, nil, nil])
        let values = items.pasteboardValues()
        #expect(values.map { $0.map(\.type) } == [["text/x-uri", "text/plain"], ["text/plain"]], "files are not on the pasteboard")
        #expect(items[0].preview.kind == .file && items[0].preview.size == Self.png.count && items[2].preview.text == "hi")
        let question = items.shareQuestion(activationToken: "token")
        #expect(question.count == 3 && question.activationToken == "token" && question.previews.count == 3)
        #expect(question.types == ShareSubject(items: items.map(\.summary), tools: ShareTools(copy: false, save: false)).types)
    }

    @Test func theSheetsContextOnlyForAQuestion() async throws {
        tree.writeBytes(tree.root + "/cat.png", Self.png)
        let file = HeldFD(reading: tree.root + "/cat.png")
        let items = try await SharedItem.intake([["file": .descriptor(file)]], keys: Self.keys, documents: documents, runner: InlineRunner(), key: "k", facts: nil)
        let asked = items.chooserContext(for: .ask(HandlerQuestion(subject: ShareTargetID.choiceSubject, candidates: [])), activationToken: "t", parentWindow: "x11:0x2a")
        #expect(asked == ChooserContext(share: items.shareQuestion(activationToken: "t"), parentWindow: "x11:0x2a"))
        #expect(asked.share?.previews.first?.size == Self.png.count)
        let decided = items.chooserContext(for: .open(ChooserTargetID("_phone_"), .requested), activationToken: "t", parentWindow: "x11:0x2a")
        #expect(decided == ChooserContext(), "a decided target (a device's) shows no sheet: nothing is looked at for one")
    }

    @Test func aFailureNamesItsItemAndKeepsItsKind() async throws {
        tree.write(tree.root + "/a.txt", "text")
        let file = HeldFD(reading: tree.root + "/a.txt")
        await #expect(throws: ServiceFailure(.invalidArgument, "item 1 must hold exactly one of 'file' (h), 'url' (s) or 'type' (s) with 'data' (ay or h)")) {
            try await SharedItem<HeldFD>.intake([["url": .string("https://example.org")], ["name": .string("x")]],
                                        keys: Self.keys, documents: documents, runner: InlineRunner(), key: "k", facts: nil)
        }
        await #expect(throws: ServiceFailure(.limitsExceeded, "item 0: too many")) {
            try await SharedItem.intake([["file": .descriptor(file)]], keys: Self.keys, documents: documents,
                                        runner: InlineRunner(refusing: ServiceFailure(.limitsExceeded, "too many")), key: "k", facts: nil)
        }
        tree.mkdir(tree.root + "/folder")
        let folder = HeldFD(open(tree.root + "/folder", O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        await #expect(throws: ServiceFailure.self, "only regular files are shared as files") {
            try await SharedItem.intake([["file": .descriptor(folder)]], keys: Self.keys, documents: documents, runner: InlineRunner(), key: "k", facts: nil)
        }
    }

    @Test func shareTargetsAsksAboutFilesOfTypes() throws {
        #expect(try ShareItemSummary.files(ofTypes: ["image/png", "Text/Plain"]) == [ShareItemSummary(kind: .file, type: "image/png"),
                                                                                  ShareItemSummary(kind: .file, type: "text/plain")])
        #expect(throws: ServiceFailure(.invalidArgument, "at most 256 types at once")) { try ShareItemSummary.files(ofTypes: Array(repeating: "a/b", count: 257)) }
        #expect(throws: ServiceFailure.self) { try ShareItemSummary.files(ofTypes: ["not a type"]) }
    }

    @Test func anItemIsReadBackFromItsFileOrTheSharesPasteboard() async throws {
        tree.write(tree.root + "/a.txt", "from the file")
        let items: [SharedItem<HeldFD>] = [
            SharedItem(payload: .file(HeldFD(reading: tree.root + "/a.txt")), summary: ShareItemSummary(kind: .file, type: "text/plain"), name: "a.txt"),
            SharedItem(payload: .url("https://example.org/b"), summary: ShareItemSummary(kind: .url, type: ShareItemSummary.uriType), name: ""),
        ]
        let calls = PasteboardCalls(store: PasteboardStore(disk: nil), descriptors: InlineRunner())
        let board = try #require(try await calls.forShare(items.pasteboardValues(), caller: owner))
        let file = try items.source(of: 0, board: board.id, store: calls.store, owner: owner)
        defer { close(file) }
        #expect(readAll(file) == Array("from the file".utf8))
        let url = try items.source(of: 1, board: board.id, store: calls.store, owner: owner)
        defer { close(url) }
        #expect(readAll(url) == Array("https://example.org/b".utf8), "a URL is read as text")
        #expect(throws: ServiceFailure(.failed, "the share's data is gone")) { try items.source(of: 1, board: nil, store: calls.store, owner: owner) }
    }

    /// A tool in `tree.bin`: a shell script (a test program, never the product's way).
    func tool(_ name: String, _ script: String) {
        tree.write(tree.bin + "/" + name, "#!/bin/sh\n" + script)
        chmod(tree.bin + "/" + name, 0o755)
    }

    @Test func copyGivesTheDataToTheClipboardTool() async throws {
        let taken = tree.root + "/taken"
        tool("xclip", "/bin/cat > '\(taken)'\necho \"$@\" > '\(taken).args'\n")
        tree.write(tree.root + "/data", "copied bytes")
        let builtins = BuiltinActivities(environment: ["PATH": tree.bin, "DISPLAY": ":0"])
        try await builtins.copy(type: "text/plain") { open(tree.root + "/data", O_RDONLY | O_CLOEXEC) }
        #expect(tree.read(taken) == "copied bytes")
        #expect(tree.read(taken + ".args") == "-selection clipboard -t text/plain\n")
        tool("xclip", "exit 3\n")
        await #expect(throws: ServiceFailure(.launchFailed, "\(tree.bin)/xclip could not take the data (exit status 3)")) {
            try await builtins.copy(type: "text/plain") { open(tree.root + "/data", O_RDONLY | O_CLOEXEC) }
        }
        await #expect(throws: ServiceFailure(.noTarget, "no clipboard tool (wl-copy or xclip) for this session")) {
            try await BuiltinActivities(environment: ["PATH": tree.bin]).copy(type: "text/plain") { -1 }
        }
    }

    @Test func saveWritesWhereTheDialogSaid() async throws {
        let chosen = tree.root + "/saved.txt"
        tool("zenity", "echo '\(chosen)'\n")
        tree.write(tree.root + "/data", "saved bytes")
        let builtins = BuiltinActivities(environment: ["PATH": tree.bin, "DISPLAY": ":0"])
        let path = try await builtins.save(name: "a.txt", title: nil, activationToken: nil, timeout: .seconds(30), runner: InlineRunner(), key: "k") {
            open(tree.root + "/data", O_RDONLY | O_CLOEXEC)
        }
        #expect(path == chosen && tree.read(chosen) == "saved bytes")
        tool("zenity", "exit 1\n")
        await #expect(throws: ServiceFailure(.cancelled, "nothing was saved")) {
            try await builtins.save(name: "", title: "Save", activationToken: "t", timeout: .seconds(30), runner: InlineRunner(), key: "k") { -1 }
        }
    }
}
