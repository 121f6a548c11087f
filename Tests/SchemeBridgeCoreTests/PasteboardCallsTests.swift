import Foundation
import Testing
import LinuxSystem
@testable import SchemeBridgeCore

/// Descriptor work run where it is asked for (the daemon's threads are not part of these rules);
/// `refusing` stands for a caller over its jobs, or threads that did not take the work in time.
struct InlineRunner: DescriptorRunner {
    var refusing: ServiceFailure? = nil

    func run<T: Sendable>(for key: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        if let refusing { throw refusing }
        return try work()
    }

    func failure(of error: any Error) -> ServiceFailure { error as? ServiceFailure ?? ServiceFailure(.failed, "\(error)") }
}

/// A descriptor an item holds, closed with its holder (as the daemon's D-Bus descriptor is).
final class HeldFD: HeldDescriptor {
    let rawValue: Int32
    init(_ fd: Int32) { rawValue = fd }
    /// A new descriptor of `path`, for reading.
    convenience init(reading path: String) { self.init(open(path, O_RDONLY | O_CLOEXEC)) }
    deinit { close(rawValue) }
    func withFileDescriptor<T, E: Error>(_ body: (borrowing FileDescriptor) throws(E) -> T) throws(E) -> T {
        try withExtendedLifetime(self) { () throws(E) -> T in try FileDescriptor.lending(rawValue, body) }
    }
}

/// Everything `fd` reads from its start.
func readAll(_ fd: Int32) -> [UInt8] {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var offset: off_t = 0
    while true {
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
        guard n > 0 else { return out }
        out += buffer[..<n]
        offset += off_t(n)
    }
}

/// ``PasteboardCalls``: each pasteboard call's work over the store (its end-to-end tests:
/// `PasteboardTests`, `PasteboardQuotaTests`, `ShareTests`); ``PasteboardItemGrammar``,
/// ``PasteboardReference`` from the option's text, what a removal logs.
@Suite struct PasteboardCallsTests {
    let owner = Caller(busName: ":1.5", id: "org.example.Owner")
    let reader = Caller(busName: ":1.6", id: "org.example.Reader")

    @Test func aWriteIsCopiedCommittedAndReadBack() async throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.write(tree.root + "/picture", "not quite a png")
        let calls = PasteboardCalls(store: PasteboardStore(disk: nil), descriptors: InlineRunner())
        let board = try await calls.create(name: "clip", persistent: false, expiresIn: nil, caller: owner)
        let file = HeldFD(reading: tree.root + "/picture")
        let items = try PasteboardItemGrammar.items([[("text/plain", .bytes(Array("hello".utf8)))], [("image/png", .descriptor(file.rawValue))]],
                                                    limits: PasteboardLimits())
        let (count, after) = try await calls.setItems(board.id, items, caller: owner)
        #expect(count == after.changeCount && count > 0)
        #expect(after.types == [["text/plain"], ["image/png"]])
        #expect(try calls.types(board.id, caller: owner) == after.types)
        #expect(try await calls.readBytes(board.id, item: 1, type: "image/png", caller: owner) == Array("not quite a png".utf8), "the file's bytes were copied")
        let fd = try await calls.read(board.id, item: 0, type: "text/plain", caller: owner)
        defer { close(fd) }
        #expect(readAll(fd) == Array("hello".utf8))
        await #expect(throws: ServiceFailure.self, "only the owner writes") { try await calls.setItems(board.id, items, caller: reader) }
        withExtendedLifetime(file) {}
    }

    @Test func grantsAreCheckedAndOnlyTheOwnerAndGranteesSeeABoard() async throws {
        let calls = PasteboardCalls(store: PasteboardStore(disk: nil), descriptors: InlineRunner())
        let board = try await calls.create(name: "shared", persistent: false, expiresIn: nil, caller: owner)
        await #expect(throws: ServiceFailure(.invalidArgument, "at most 256 app ids at once")) {
            try await calls.changeGrants(board.id, appIDs: Array(repeating: "org.example.Reader", count: 257), revoke: false, caller: owner)
        }
        await #expect(throws: ServiceFailure.self, "an app id pattern is checked") {
            try await calls.changeGrants(board.id, appIDs: ["not an app id"], revoke: false, caller: owner)
        }
        #expect(calls.store.visible(board.id, to: reader) == nil && calls.store.visible(board.id, to: owner)?.id == board.id)
        #expect(calls.store.visible(board.id, to: nil) == nil, "a caller not identified yet sees nothing")
        try await calls.changeGrants(board.id, appIDs: ["org.example.Reader"], revoke: false, caller: owner)
        #expect(calls.store.visible(board.id, to: reader)?.id == board.id)
        let stranger = Caller(busName: ":1.7", id: "org.example.Stranger")
        await #expect(throws: ServiceFailure.noSuchPasteboard, "a stranger is not told it exists") { try await calls.delete(board.id, caller: stranger) }
        try await calls.delete(board.id, caller: reader)
        #expect(calls.store.peek(board.id) == nil, "a grantee may delete it")
    }

    @Test func aSharesPasteboardHoldsItsDataAndGoesWhenTheShareDoes() async throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.write(tree.root + "/notes", "some notes")
        let calls = PasteboardCalls(store: PasteboardStore(disk: nil), descriptors: InlineRunner())
        #expect(try await calls.forShare([], caller: owner) == nil, "a share of files alone has no pasteboard")
        let url = ShareItemSummary.pasteboardValues(url: "https://example.org/").map { (type: $0.type, value: PasteboardWrite.Value.bytes($0.bytes)) }
        let board = try #require(try await calls.forShare([url], caller: owner))
        #expect(calls.store.peek(board.id)?.types == [["text/x-uri", "text/plain"]] && calls.store.peek(board.id)?.madeForShare == true)
        calls.discard(board, caller: owner)
        #expect(await waitUntil { calls.store.peek(board.id) == nil } != nil)

        // Data that cannot be copied leaves no pasteboard behind.
        let refusing = PasteboardCalls(store: PasteboardStore(disk: nil), descriptors: InlineRunner(refusing: ServiceFailure(.limitsExceeded, "busy")))
        let file = HeldFD(reading: tree.root + "/notes")
        await #expect(throws: ServiceFailure(.limitsExceeded, "busy")) {
            try await refusing.forShare([[("text/plain", .descriptor(file.rawValue))]], caller: owner)
        }
        #expect(await waitUntil { refusing.store.count == 0 } != nil)
    }

    @Test func setItemsArgumentsAreCheckedPerItem() throws {
        #expect(throws: ServiceFailure(.invalidArgument, "item 0 names 'text/plain' twice")) {
            try PasteboardItemGrammar.items([[("text/plain", .bytes([1])), ("text/plain", .bytes([2]))]], limits: PasteboardLimits())
        }
        #expect(throws: ServiceFailure(.invalidArgument, "item 1's 'text/plain' is 's': data is a byte array (ay) or a file descriptor (h)")) {
            try PasteboardItemGrammar.items([[("image/png", .bytes([1]))], [("text/plain", .other(signature: "s"))]], limits: PasteboardLimits())
        }
        var one = PasteboardLimits()
        one.maximumItems = 1
        #expect(throws: ServiceFailure.self) { try PasteboardItemGrammar.items([[], []], limits: one) }
        #expect(throws: ServiceFailure.self, "a type is validated") { try PasteboardItemGrammar.items([[("no type", .bytes([]))]], limits: PasteboardLimits()) }
        let items = try PasteboardItemGrammar.items([[("text/plain", .bytes([1])), ("text/html", .descriptor(7))]], limits: PasteboardLimits())
        #expect(items.map { $0.map(\.type) } == [["text/plain", "text/html"]])
    }

    @Test func theOptionNamesABoardByPathOrName() async throws {
        let prefix = "/io/github/schemebridge/SchemeBridge1/pasteboard", id = String(repeating: "a0", count: 16)
        #expect(PasteboardReference(prefix + "/" + id, pathPrefix: prefix) == .object(id: id))
        #expect(PasteboardReference(prefix + "/nope", pathPrefix: prefix) == .object(id: nil))
        #expect(PasteboardReference("/elsewhere/" + id, pathPrefix: prefix) == .object(id: nil), "a path elsewhere names none")
        #expect(PasteboardReference("clip", pathPrefix: prefix) == .name("clip"))
        #expect(PasteboardReference.id(inPath: prefix + id, prefix: prefix) == nil, "the prefix is a whole component")

        let calls = PasteboardCalls(store: PasteboardStore(disk: nil), descriptors: InlineRunner())
        let board = try await calls.create(name: "clip", persistent: false, expiresIn: nil, caller: owner)
        let expired = PasteboardStore.Removal.expired.logLine(board)
        #expect(!expired.notice && expired.line == "pasteboard \(board.id) expired")
        #expect(PasteboardStore.Removal.evicted.logLine(board).notice && PasteboardStore.Removal.evicted.logLine(board).line.contains("org.example.Owner"))
    }
}
