import Foundation
import Testing
@testable import SchemeBridgeCore

/// ``Broker/admitsQuickly(_:handler:caller:)``: which opens a service may admit and spawn on its
/// D-Bus loop thread (issue 36) — never one whose check would first build the registry's model.
@Suite struct QuickAdmissionTests {
    @Test func servedFromTheIndexOnlyAProtectedEntryIsQuickAndNothingIsBuiltToSaySo() throws {
        let tree = XDGTree()
        tree.entry(0, "user.desktop", schemes: ["mine"])
        tree.entry(1, "system.desktop", schemes: ["theirs"])
        usleep(250_000)  // no file "racy" for the index
        for _ in 0..<2 { Registry(environment: tree.environment, watch: false).close() }
        let registry = Registry(environment: tree.environment, watch: false)
        defer { registry.close() }
        #expect(registry.isServedFromIndex)
        let broker = Broker(registry: registry, policy: PolicyStore(path: tree.configHome + "/none"), ownDesktopIDs: [])
        let caller = Caller(busName: ":1.9")
        #expect(broker.admitsQuickly(try SchemeURL("theirs://x"), handler: nil, caller: caller))
        #expect(broker.admitsQuickly(try SchemeURL("theirs://x"), handler: DesktopID(fileName: "system.desktop"), caller: caller))
        #expect(broker.admitsQuickly(try SchemeURL("nothing://x"), handler: nil, caller: caller), "refused at once")
        // The user's entry: its check reads what it masks, which builds the model.
        #expect(!broker.admitsQuickly(try SchemeURL("mine://x"), handler: nil, caller: caller))
        #expect(!broker.admitsQuickly(try SchemeURL("theirs://x"), handler: DesktopID(fileName: "user.desktop"), caller: caller))
        // x-callback URLs: the caller's entry is looked up and the routes pinned.
        #expect(!broker.admitsQuickly(try SchemeURL("theirs://x?x-success=mine%3A%2F%2Fback"), handler: nil, caller: caller))
        #expect(registry.isServedFromIndex, "asking built the model")
        // Once the model is built (the first change), every open is quick.
        registry.rescan()
        #expect(!registry.isServedFromIndex)
        #expect(broker.admitsQuickly(try SchemeURL("mine://x"), handler: nil, caller: caller))
    }
}
