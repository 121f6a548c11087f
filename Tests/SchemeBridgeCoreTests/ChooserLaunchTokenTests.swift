import Testing
@testable import SchemeBridgeCore

/// Issue 39: the token a handler is started with after a chooser. The caller's token went to
/// the chooser's window (spent, under Wayland); the app the user chose gets the fresh token the
/// chooser answered, or none — never the caller's again. Without a chooser, the caller's.
@Suite struct ChooserLaunchTokenTests {
    @Test func afterAChooserTheHandlerGetsTheChoosersFreshTokenNeverTheCallers() async throws {
        let (_, broker) = OnePathTests().broker()
        let context = ChooserContext(activationToken: "caller-token", title: nil, share: nil)
        for flow in [DecisionFlow.open, .share, .pick] {
            let fresh = try await broker.settle(.ask(OnePathTests.question), for: flow, caller: OnePathTests.app,
                                                chooser: OnePathTests.FakeChooser(.picked("b.desktop", always: false, activationToken: "fresh-token")),
                                                context: context, warn: { Issue.record("\($0)") })
            #expect(fresh == SettledHandler(id: "b.desktop", reason: nil, chooserToken: "fresh-token"))
            #expect(fresh.launchToken(callerToken: "caller-token") == "fresh-token")
            // A chooser that obtained none (Chooser1, [Chooser] Command=, an X11-less session): none at all.
            let none = try await broker.settle(.ask(OnePathTests.question), for: flow, caller: OnePathTests.app,
                                               chooser: OnePathTests.FakeChooser(.picked("b.desktop", always: false)),
                                               context: context, warn: { Issue.record("\($0)") })
            #expect(none.launchToken(callerToken: "caller-token") == nil)
        }
    }

    @Test func withoutAChooserTheCallersTokenGoesOn() async throws {
        let (_, broker) = OnePathTests().broker()
        let chooser = OnePathTests.FakeChooser(.picked("b.desktop", always: false, activationToken: "fresh-token"))
        for reason in [HandlerReason.route(callerPattern: "org.*"), .byDefault, .callback] {
            let settled = try await broker.settle(.open("a.desktop", reason), for: .open, caller: OnePathTests.app, chooser: chooser,
                                                  context: ChooserContext(), warn: { Issue.record("\($0)") })
            #expect(settled.launchToken(callerToken: "caller-token") == "caller-token")
            #expect(settled.launchToken(callerToken: nil) == nil)
        }
        #expect(chooser.count == 0)
    }

    @Test func aChoosersTokenThatIsNoTokenIsNotHandedOn() {
        for bad in ["", "a\nb", String(repeating: "x", count: ActivationToken.maximumByteCount + 1)] {
            #expect(SettledHandler(id: "b.desktop", reason: nil, chooserToken: bad).launchToken(callerToken: "caller-token") == nil)
        }
        #expect(ChooserAnswer.picked("b", always: true, activationToken: "t").launchToken == "t")
        #expect(ChooserAnswer.cancelled(reason: "closed").launchToken == nil)
    }
}
