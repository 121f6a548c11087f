import Glibc
import Testing
@testable import SchemeBridgeCore

/// The rules of a `SetItems` without a bus (`PasteboardWrite`, `PasteboardStore.beginWrite`):
/// counts, the owner only, the inline limit, the owner's byte budget across bytes and copies.
@Suite struct PasteboardWriteTests {
    static func caller(_ n: Int, _ id: String) -> Caller { Caller(busName: ":1.\(n)", id: CallerID(id), lineage: [Int32(1000 + n)]) }

    static func store() -> PasteboardStore {
        var limits = PasteboardLimits()
        limits.maximumInlineBytes = 8
        limits.maximumBytesPerOwner = 20
        return PasteboardStore(disk: nil, limits: { [limits] in limits })
    }

    func kind(_ body: () throws(PasteboardError) -> Void) -> PasteboardError.Kind? {
        do { try body(); return nil } catch { return error.kind }
    }

    @Test func countsAreChecked() {
        let limits = PasteboardLimits()
        #expect(kind { () throws(PasteboardError) in try PasteboardWrite.check(itemCount: limits.maximumItems, limits: limits) } == nil)
        #expect(kind { () throws(PasteboardError) in try PasteboardWrite.check(itemCount: limits.maximumItems + 1, limits: limits) } == .invalidArgument)
        #expect(kind { () throws(PasteboardError) in try PasteboardWrite.check(typeCount: limits.maximumTypesPerItem + 1, item: 0, limits: limits) } == .invalidArgument)
    }

    @Test func onlyTheOwnerWritesWithinItsBudget() throws {
        let store = Self.store()
        let (owner, reader) = (Self.caller(1, "org.example.Owner"), Self.caller(2, "org.example.Reader"))
        let board = try store.create(name: "b", persistent: false, expiresIn: nil, caller: owner)
        try store.changeGrants(board.id, [AppIDPattern("org.example.Reader")], revoke: false, caller: owner)
        let small: [[(type: String, value: PasteboardWrite.Value)]] = [[(type: "text/plain", value: .bytes(Array("hello".utf8)))]]
        #expect(kind { () throws(PasteboardError) in _ = try store.beginWrite(board.id, small, caller: reader) } == .accessDenied)
        // Inline bytes past MaxInlineBytes go by descriptor.
        #expect(kind { () throws(PasteboardError) in _ = try store.beginWrite(board.id, [[(type: "text/plain", value: .bytes(Array("123456789".utf8)))]], caller: owner) } == .invalidArgument)
        // Three values of 8 bytes: 24 > the owner's 20.
        let three = (0..<3).map { i in [(type: "text/x-\(i)", value: PasteboardWrite.Value.bytes(Array("12345678".utf8)))] }
        #expect(kind { () throws(PasteboardError) in _ = try store.beginWrite(board.id, three, caller: owner) } == .quotaExceeded)
        let write = try store.beginWrite(board.id, small, caller: owner)
        #expect(!write.needsCopies)
        #expect(try store.setItems(board.id, write.ready, caller: owner).0 == 1)
    }

    @Test func aFileDescriptorIsCopiedWithinWhatIsLeft() throws {
        let store = Self.store()
        let owner = Self.caller(1, "org.example.Owner")
        let board = try store.create(name: "b", persistent: false, expiresIn: nil, caller: owner)
        var template = Array(temporaryPath("sb-write-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        defer { close(fd); template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) } }
        #expect(write(fd, "0123456789", 10) == 10)
        // 8 inline bytes leave 12: the 10-byte file fits.
        var fits = try store.beginWrite(board.id, [[(type: "text/plain", value: .bytes(Array("12345678".utf8))),
                                                    (type: "application/octet-stream", value: .descriptor(fd))]], caller: owner)
        #expect(fits.needsCopies)
        try fits.copy()
        #expect(fits.ready.map { $0.map(\.data.size) } == [[8, 10]])
        // Two copies of it (20) after 8 inline bytes do not.
        var over = try store.beginWrite(board.id, [[(type: "text/plain", value: .bytes(Array("12345678".utf8)))],
                                                   [(type: "a/b", value: .descriptor(fd))], [(type: "a/c", value: .descriptor(fd))]], caller: owner)
        #expect(kind { () throws(PasteboardError) in try over.copy() } == .quotaExceeded)
    }
}
