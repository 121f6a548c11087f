import Testing
@testable import SchemeBridgeCore

/// Issue 26: a token handed to a started handler is not handed to another launch.
@Suite struct UsedActivationTokensTests {
    @Test func aRecordedTokenIsNotHandedOnAgain() {
        let used = UsedActivationTokens()
        #expect(used.unused("t1") == "t1" && used.unused(nil) == nil)
        used.record("t1")
        used.record(nil)
        #expect(used.unused("t1") == nil && used.contains("t1"))
        #expect(used.unused("t2") == "t2")
    }

    @Test func theOldestIsForgottenPastTheCapacity() {
        let used = UsedActivationTokens(capacity: 2)
        for t in ["a", "b", "a", "c"] { used.record(t) }
        #expect(!used.contains("a") && used.contains("b") && used.contains("c"))
    }

    /// The broker hands a used token to no launch: the handler gets none (and no startup id).
    @Test func theBrokerGivesALaunchNoUsedToken() throws {
        let t = XDGTree()
        t.entry(0, "app.desktop", schemes: ["app"], exec: "/bin/true %u")
        let broker = Broker(registry: t.registry(), policy: PolicyStore(path: t.configHome + "/none"), ownDesktopIDs: [])
        let request = try OpenRequest(url: "app://x", activationToken: "tok", launchImage: false, caller: Caller(busName: ":1.1"))
        let first = try broker.admit(request, searchPath: [], sessionScale: 1, splashAvailable: false)
        #expect(first.context.activationToken == "tok")
        broker.usedActivationTokens.record(first.context.activationToken)
        let second = try broker.admit(request, searchPath: [], sessionScale: 1, splashAvailable: false)
        #expect(second.context.activationToken == nil && second.context.startupID == nil)
    }
}
