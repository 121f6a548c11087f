import Foundation
import Glibc
import Testing
@testable import SchemeBridgeCore

/// `Share`'s item grammar (``ShareItemGrammar``), what the sheet shows of an item
/// (``ShareItemPreview``), and "Save to…"'s write (``SavedItem``).
@Suite struct ShareIntakeRuleTests {
    typealias Field = ShareItemGrammar.Field<Int32>
    static let keys = ShareItemGrammar.Keys(file: "file", url: "url", type: "type", data: "data", name: "name", title: "title")

    static func item(_ entries: [String: Field]) throws(ServiceFailure) -> ShareItemGrammar.Item<Int32> {
        try ShareItemGrammar.item(3, entries, keys: keys)
    }

    static func refusal(_ entries: [String: Field]) -> String? {
        do throws(ServiceFailure) { _ = try item(entries); return nil } catch {
            #expect(error.kind == .invalidArgument)
            return error.message
        }
    }

    @Test func eachKindOfItem() throws {
        guard case .file(7, let name) = try Self.item(["file": .descriptor(7), "title": .string("a photo"), "name": .string("../x.png")]) else {
            Issue.record("not a file"); return
        }
        #expect(name == ShareItemSummary.safeName("../x.png"))
        guard case .url("todolist://add?x=1", nil) = try Self.item(["url": .string("todolist://add?x=1")]) else { Issue.record("not a URL"); return }
        guard case .bytes(let bytes, let type, let named) = try Self.item(["data": .bytes([1, 2]), "type": .string("Text/Plain"), "name": .string("n")]) else {
            Issue.record("not bytes"); return
        }
        #expect(bytes == [1, 2] && type.name == "text/plain" && named == "n")
        guard case .data(9, _, nil) = try Self.item(["data": .descriptor(9), "type": .string("image/png")]) else { Issue.record("not data"); return }
    }

    @Test func whatIsRefusedAndHowItIsNamed() {
        #expect(Self.refusal([:]) == "item 3 must hold exactly one of 'file' (h), 'url' (s) or 'type' (s) with 'data' (ay or h)")
        #expect(Self.refusal(["file": .descriptor(1), "url": .string("a:b")])?.hasPrefix("item 3 must hold exactly one of") == true)
        #expect(Self.refusal(["file": .string("/etc/passwd")]) == "item 3: 'file' must be a file descriptor (h)")
        #expect(Self.refusal(["file": .descriptor(1), "type": .string("text/plain")]) == "item 3: a file's type is detected; 'type' goes with 'data'")
        #expect(Self.refusal(["url": .bytes([1])]) == "item 3: 'url' must be a string (s), not 'ay'")
        #expect(Self.refusal(["url": .string("a:b"), "type": .string("text/plain")]) == "item 3: 'url' must be a string (s) alone")
        #expect(Self.refusal(["url": .string("no scheme")])?.hasPrefix("item 3: 'no scheme' is not a valid URL: ") == true)
        #expect(Self.refusal(["data": .bytes([])]) == "item 3: 'data' needs its content type in 'type' (s)")
        #expect(Self.refusal(["data": .bytes([]), "type": .string("plain")])?.hasPrefix("item 3: 'plain' is not a content type") == true)
        #expect(Self.refusal(["data": .string("x"), "type": .string("text/plain")]) == "item 3: 'data' is a byte array (ay) or a file descriptor (h)")
        #expect(Self.refusal(["url": .string("a:b"), "name": .other(signature: "u")]) == "item 3: 'name' must be a string (s), not 'u'")
        #expect(Self.refusal(["url": .string("a:b"), "title": .string(String(repeating: "t", count: SchemeURL.maximumByteCount + 1))])
                == "item 3: 'title' is longer than \(SchemeURL.maximumByteCount) bytes")
    }

    @Test func howManyItems() {
        #expect(throws: ServiceFailure(.invalidArgument, "nothing to share: items is empty")) { try ShareItemGrammar.checkCount(0, maximum: 5) }
        #expect(throws: ServiceFailure(.invalidArgument, "6 items: one share holds at most 5")) { try ShareItemGrammar.checkCount(6, maximum: 5) }
        #expect(throws: Never.self) { try ShareItemGrammar.checkCount(5, maximum: 5) }
    }

    @Test func previews() throws {
        let tree = XDGTree()
        tree.write(tree.home + "/a.txt", "hello")
        let fd = open(tree.home + "/a.txt", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        #expect(ShareItemPreview.file(descriptor: fd, name: "a.txt", type: "text/plain")
                == ShareItemPreview(kind: .file, name: "a.txt", type: "text/plain", size: 5, path: "/proc/\(getpid())/fd/\(fd)"))
        #expect(ShareItemPreview.url("x:y", type: ShareItemSummary.uriType) == ShareItemPreview(kind: .url, type: ShareItemSummary.uriType, url: "x:y"))
        #expect(ShareItemPreview.data(bytes: Array("hi".utf8), descriptor: nil, name: "", type: "text/plain")
                == ShareItemPreview(kind: .text, type: "text/plain", size: 2, text: "hi"))
        #expect(ShareItemPreview.data(bytes: [0, 1, 2], descriptor: nil, name: "b", type: "image/png") == ShareItemPreview(kind: .data, name: "b", type: "image/png", size: 3))
        #expect(ShareItemPreview.data(bytes: nil, descriptor: fd, name: "", type: "text/plain") == ShareItemPreview(kind: .text, type: "text/plain", size: 5),
                "a descriptor's text is not read for the sheet; a regular file's size is told")
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { close(pipe[0]); close(pipe[1]) }
        #expect(ShareItemPreview.data(bytes: nil, descriptor: pipe[0], name: "", type: "image/png") == ShareItemPreview(kind: .data, type: "image/png"))
    }

    @Test func savedItemIsWrittenWholeAndNeverThroughASymlink() throws {
        let tree = XDGTree()
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        tree.writeBytes(tree.home + "/source", bytes)
        let source = open(tree.home + "/source", O_RDONLY | O_CLOEXEC)
        defer { close(source) }
        try SavedItem.write(from: source, to: tree.home + "/saved")
        #expect(FileManager.default.contents(atPath: tree.home + "/saved") == Data(bytes))
        try FileManager.default.createSymbolicLink(atPath: tree.home + "/link", withDestinationPath: tree.home + "/victim")
        #expect(throws: ServiceFailure.self) { try SavedItem.write(from: source, to: tree.home + "/link") }
        #expect(!FileManager.default.fileExists(atPath: tree.home + "/victim"))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: tree.home + "/link")) == tree.home + "/victim", "the link is left as it was")
        tree.write(tree.home + "/victim", "kept")
        #expect(throws: ServiceFailure.self) { try SavedItem.write(from: source, to: tree.home + "/link") }
        #expect(tree.read(tree.home + "/victim") == "kept" && Self.isSymlink(tree.home + "/link"))
        #expect(mkfifo(tree.home + "/fifo", 0o600) == 0)
        #expect(throws: ServiceFailure.self) { try SavedItem.write(from: source, to: tree.home + "/fifo") }
        #expect(Self.status(tree.home + "/fifo").map { $0.st_mode & S_IFMT } == S_IFIFO, "a special file is neither written nor replaced")
        #expect(try Self.names(in: tree.home) == ["fifo", "link", "saved", "source", "victim"], "no temporary file left")
    }

    /// A copy that fails half way (the source, a socket whose peer has gone leaving unread data:
    /// what it sent is read, then `ECONNRESET`) leaves the file it was to replace byte for byte
    /// as it was, and nothing else in its folder.
    @Test func savedItemThatFailsHalfWayLeavesTheFileItWasToReplace() throws {
        let tree = XDGTree()
        let old = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        tree.writeBytes(tree.home + "/kept", old)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        let sent = [UInt8](repeating: 0x6E, count: 20_000)
        #expect(write(pair[1], sent, sent.count) == sent.count && write(pair[0], "x", 1) == 1)
        close(pair[1])
        #expect(throws: ServiceFailure.self) { try SavedItem.write(from: pair[0], to: tree.home + "/kept") }
        #expect(FileManager.default.contents(atPath: tree.home + "/kept") == Data(old))
        #expect(try Self.names(in: tree.home) == ["kept"], "no temporary file left")
    }

    /// A file saved over keeps its permissions and owner; a new one is made 0644 (less the umask).
    @Test func savedItemKeepsTheModeAndOwnerOfTheFileItReplaces() throws {
        let tree = XDGTree()
        tree.write(tree.home + "/source", "new content")
        let source = open(tree.home + "/source", O_RDONLY | O_CLOEXEC)
        defer { close(source) }
        tree.write(tree.home + "/kept", "old content, longer than the new")
        #expect(chmod(tree.home + "/kept", 0o640) == 0)
        let owner: (uid_t, gid_t) = geteuid() == 0 ? (4321, 8765) : (geteuid(), getegid())
        #expect(chown(tree.home + "/kept", owner.0, owner.1) == 0)
        try SavedItem.write(from: source, to: tree.home + "/kept")
        #expect(tree.read(tree.home + "/kept") == "new content")
        let st = try #require(Self.status(tree.home + "/kept"))
        #expect(st.st_mode & 0o7777 == 0o640 && st.st_uid == owner.0 && st.st_gid == owner.1)
        #expect(lseek(source, 0, SEEK_SET) == 0)
        try SavedItem.write(from: source, to: tree.home + "/new")
        let mask = umask(0o022)
        umask(mask)
        #expect(Self.status(tree.home + "/new").map { $0.st_mode & 0o7777 } == 0o644 & ~mask)
        #expect(try Self.names(in: tree.home) == ["kept", "new", "source"], "no temporary file left")
    }

    static func status(_ path: String) -> stat? {
        var st = stat()
        return lstat(path, &st) == 0 ? st : nil
    }

    static func isSymlink(_ path: String) -> Bool { status(path).map { $0.st_mode & S_IFMT == S_IFLNK } ?? false }

    static func names(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }
}
