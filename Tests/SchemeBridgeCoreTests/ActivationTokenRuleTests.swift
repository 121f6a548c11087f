import Testing
import SchemeBridgeCore

/// The core's rules for activation tokens: which are handed on, and the environment of the
/// windows SchemeBridge shows for a caller.
@Suite struct ActivationTokenRuleTests {
    @Test func tokensAreNonEmptyBoundedAndFreeOfControlCharacters() {
        #expect(ActivationToken.isValid("gnome-shell/Firefox/2341-0-host_TIME3344"))
        #expect(ActivationToken.isValid(String(repeating: "a", count: ActivationToken.maximumByteCount)))
        #expect(!ActivationToken.isValid(""))
        #expect(!ActivationToken.isValid(String(repeating: "a", count: ActivationToken.maximumByteCount + 1)))
        #expect(!ActivationToken.isValid("two\nlines") && !ActivationToken.isValid("tab\there") && !ActivationToken.isValid("del\u{7F}"))
        #expect(ActivationToken.problem("ok") == nil)
        #expect(ActivationToken.problem("a\u{1}b")?.contains("control characters") == true)
    }

    @Test func aTokenTheHandlerWasStartedWithIsNotHandedBack() {
        #expect(ActivationToken.handedBack("fresh", launchedWith: ["caller-token", "schemebridge-1-2_TIME3"]))
        #expect(!ActivationToken.handedBack("caller-token", launchedWith: ["caller-token"]))
        #expect(!ActivationToken.handedBack("schemebridge-1-2_TIME3", launchedWith: ["caller-token", "schemebridge-1-2_TIME3"]))
        #expect(!ActivationToken.handedBack("", launchedWith: []))
    }

    @Test func helpersGetTheCallersTokenInBothVariablesAndNothingElse() {
        #expect(ActivationToken.helperEnvironment("t1") == ["XDG_ACTIVATION_TOKEN": "t1", "DESKTOP_STARTUP_ID": "t1"])
        #expect(ActivationToken.helperEnvironment(nil).isEmpty)
        #expect(ActivationToken.helperEnvironment("bad\ntoken").isEmpty)
        let base = ["DISPLAY": ":3", "XDG_ACTIVATION_TOKEN": "stale"]
        #expect(ActivationToken.helperEnvironment("t2", base: base) == ["DISPLAY": ":3", "XDG_ACTIVATION_TOKEN": "t2", "DESKTOP_STARTUP_ID": "t2"])
    }
}
