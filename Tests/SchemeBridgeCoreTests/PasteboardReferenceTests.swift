import Testing
@testable import SchemeBridgeCore

/// The `pasteboard` open option: only the pasteboard's owner may grant it to a handler.
@Suite struct PasteboardReferenceTests {
    let owner = Caller(busName: ":1.1", id: "org.example.Editor", lineage: [100])
    let viewer = Caller(busName: ":1.2", id: "org.example.Viewer", lineage: [200])
    let stranger = Caller(busName: ":1.3", id: "org.example.Stranger", lineage: [300])

    @Test func theOwnerGrantsByObjectOrName() throws {
        let store = PasteboardStore(disk: nil)
        let board = try store.create(name: "notes", persistent: false, expiresIn: nil, caller: owner)
        #expect(try store.grantable(.object(id: board.id), caller: owner) == board.id)
        #expect(try store.grantable(.name("notes"), caller: owner) == board.id)
        // The owner's app from another connection owns it too.
        let elsewhere = Caller(busName: ":1.9", id: "org.example.Editor")
        #expect(try store.grantable(.name("notes"), caller: elsewhere) == board.id)
    }

    @Test func aReaderOrAStrangerCannotGrantIt() throws {
        let store = PasteboardStore(disk: nil)
        let board = try store.create(name: "notes", persistent: false, expiresIn: nil, caller: owner)
        try store.changeGrants(board.id, [try AppIDPattern("org.example.Viewer")], revoke: false, caller: owner)
        #expect(throws: PasteboardError(.accessDenied, "only the pasteboard's owner may grant it to a handler")) {
            try store.grantable(.object(id: board.id), caller: viewer)
        }
        // By name, only the caller's own are looked at; a stranger learns nothing either way.
        #expect(throws: PasteboardError.noSuchPasteboard) { try store.grantable(.name("notes"), caller: viewer) }
        #expect(throws: PasteboardError.noSuchPasteboard) { try store.grantable(.object(id: board.id), caller: stranger) }
        #expect(throws: PasteboardError.noSuchPasteboard) { try store.grantable(.object(id: nil), caller: owner) }
    }
}
