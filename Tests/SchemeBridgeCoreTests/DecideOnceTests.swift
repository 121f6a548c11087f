import Testing
@testable import SchemeBridgeCore

/// Issue 36, item 5: a request is decided once. The daemon decides (``Broker/decide(_:requested:ask:caller:)``,
/// then ``Broker/settle(_:for:caller:chooser:context:warn:)``) and hands admission the outcome —
/// "the default" included; only a request nobody decided is decided by ``Broker/admit(_:searchPath:sessionScale:splashAvailable:callbackLifetime:callback:)``.
@Suite struct DecideOnceTests {
    @Test func aDecidedRequestIsNotDecidedAgain() async throws {
        let tree = XDGTree(dataDirCount: 1)
        for id in ["a", "b"] { tree.entry(1, "\(id).desktop", schemes: ["todo"]) }
        let registry = tree.registry()
        let broker = Broker(registry: registry, policy: PolicyStore(path: tree.configHome + "/none"), ownDesktopIDs: [], choices: ChoiceStore(path: nil))
        let caller = Caller(busName: ":1.9", id: "org.example.Cal")
        let url = try SchemeURL("todo:x")
        func admitted(decided: Bool) throws -> String {
            try broker.admit(OpenRequest(url: url, handler: nil, decided: decided, caller: caller),
                             searchPath: ["/usr/bin", "/bin"], sessionScale: 1, splashAvailable: false).plan.entry.id.fileName
        }
        #expect(try admitted(decided: false) == "a.desktop")
        try await broker.remember("b.desktop", for: "todo", caller: caller)
        #expect(try admitted(decided: false) == "b.desktop", "not decided: admission decides (the remembered choice)")
        // Decided before the choice was remembered (say, while the user answered another chooser):
        // "the default" is the decision, and admission does not decide again.
        #expect(try admitted(decided: true) == "a.desktop")
    }
}
