import Testing
@testable import SchemeBridgeCore

/// Which pasteboard a name finds when several owners use it (issue 21, item 4): the one the
/// caller was launched for, else its own, else the one granted to it; two at one step is an
/// ambiguity, never the newest. And the handler's launch context carries the object path.
@Suite struct PasteboardHandOffTests {
    let owner = Caller(busName: ":1.1", id: "org.example.Editor", lineage: [100])
    let attacker = Caller(busName: ":1.2", id: "/home/u/bin/mallory", lineage: [300])
    /// The viewer the broker spawned (pid 200) and the same app run by hand (pid 400).
    let launched = Caller(busName: ":1.3", id: "org.example.Viewer", lineage: [200, 1])
    let byHand = Caller(busName: ":1.4", id: "org.example.Viewer", lineage: [400, 1])

    @Test func theLaunchedForPasteboardWinsAndTwoGrantedOwnersAreAmbiguous() throws {
        let store = PasteboardStore(disk: nil)
        let real = try store.create(name: "hand-off", persistent: false, expiresIn: nil, caller: owner)
        try store.grantHandler(real.id, handler: "org.example.Viewer.desktop", caller: owner)
        store.addLaunchGrant(real.id, .process(200))
        let forged = try store.create(name: "hand-off", persistent: false, expiresIn: nil, caller: attacker)
        try store.changeGrants(forged.id, [try AppIDPattern("org.example.Viewer")], revoke: false, caller: attacker)

        #expect(try store.find(name: "hand-off", caller: launched).id == real.id)
        #expect(throws: PasteboardError.self) { try store.find(name: "hand-off", caller: byHand) }
        do { _ = try store.find(name: "hand-off", caller: byHand) } catch { #expect(error.kind == .ambiguous && error.message.contains("object path")) }
        // Each owner still finds its own; the `pasteboard` option's lookup finds only the caller's own.
        #expect(try store.find(name: "hand-off", caller: attacker).id == forged.id)
        #expect(try store.findOwned(name: "hand-off", caller: owner).id == real.id)
        #expect(throws: PasteboardError.noSuchPasteboard) { try store.findOwned(name: "hand-off", caller: launched) }
        // Once the attacker's pasteboard is gone, the name is unambiguous again.
        try store.delete(forged.id, caller: attacker)
        #expect(try store.find(name: "hand-off", caller: byHand).id == real.id)
    }

    @Test func theHandlerIsHandedThePathInItsEnvironmentAndPlatformData() {
        var context = LaunchContext(source: "org.example.Editor")
        context.pasteboardPath = "/io/github/schemebridge/SchemeBridge1/pasteboard/0123"
        #expect(context.environment["SCHEMEBRIDGE_PASTEBOARD_PATH"] == context.pasteboardPath)
        #expect(context.platformData["pasteboard-path"] == context.pasteboardPath)
        // A value inherited from the service's own environment never reaches a handler.
        let base = LaunchContext.baseEnvironment(["SCHEMEBRIDGE_PASTEBOARD_PATH": "/forged"], busAddress: "unix:path=/b")
        #expect(base["SCHEMEBRIDGE_PASTEBOARD_PATH"] == nil)
    }
}
