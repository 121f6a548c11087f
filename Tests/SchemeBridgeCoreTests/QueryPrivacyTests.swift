import Testing
@testable import SchemeBridgeCore

/// Query privacy before identification and in broadcasts.
@Suite struct QueryPrivacyTests {
    @Test func unidentifiedCallersWaitOnlyUnderPrivacy() {
        let s = BrokerTests.Setup()
        s.tree.entry(1, "org.example.Asker.desktop", exec: "/bin/true", extra: "X-SchemeBridge-QueriesSchemes=todo;")
        let asker = Caller(busName: ":1.1", id: "org.example.Asker")
        let open = s.broker()
        #expect(open.queryScopeNow(known: nil) == .all, "privacy off: nobody is identified for a query")
        let closed = s.broker(config: "[Policy]\nQueryPrivacy=true\n")
        #expect(closed.queryScopeNow(known: nil) == nil, "privacy on: identify first")
        #expect(closed.queryScopeNow(known: asker) == .only(["todo"]))
        #expect(closed.queryScopeNow(known: Caller(busName: ":1.2")) == .only([]))
    }

    @Test func broadcastsNameNoSchemeUnderPrivacy() {
        let s = BrokerTests.Setup()
        #expect(s.broker().broadcast(changed: ["b", "a"], schemes: ["a", "b", "c"])
            == RegistryBroadcast(changedSchemes: ["a", "b"], schemes: ["a", "b", "c"]))
        #expect(s.broker(config: "[Policy]\nQueryPrivacy=true\n").broadcast(changed: ["secretbank"], schemes: ["secretbank"])
            == RegistryBroadcast(changedSchemes: [], schemes: nil))
    }
}
