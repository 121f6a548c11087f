import Testing
@testable import SchemeBridgeCore

@Suite struct PolicyUnitTests {
    @Test(arguments: [
        ("org.example.*", "org.example.Todo", true), ("org.example.*", "org.other.Todo", false),
        ("*", "", true), ("a?c", "abc", true), ("a?c", "ac", false), ("/usr/bin/gdbus", "/usr/bin/gdbus", true),
        ("*python*", "/usr/bin/python3.11", true), ("x*y*z", "xaaybbz", true), ("x*y*z", "xaayb", false),
    ])
    func patterns(_ pattern: String, _ text: String, _ expected: Bool) {
        #expect(Policy.matches(pattern[...], text[...]) == expected)
    }

    @Test func rateLimiterBucket() async throws {
        let limiter = LaunchRateLimiter(rate: 20, burst: 3)
        #expect((0..<5).map { _ in limiter.allow("a") } == [true, true, true, false, false])
        #expect(limiter.allow("b"), "buckets are per caller")
        try await Task.sleep(for: .milliseconds(120))
        #expect(limiter.allow("a"), "tokens come back at the rate")
        let off = LaunchRateLimiter(rate: 0, burst: 1)
        #expect((0..<1000).allSatisfy { _ in off.allow("x") })
    }

    @Test func reservedSchemesIncludeTheWellKnown() {
        for s in ["http", "https", "file", "ftp", "ftps", "mailto", "tel", "sms", "webcal", "webcals", "sip", "sips", "ws", "wss", "irc", "ircs"] {
            #expect(Policy.isReserved(s, in: Policy.defaultReservedSchemes), "\(s)")
        }
        for s in ["todolist", "s", "bank", "banks"] {
            #expect(!Policy.isReserved(s, in: Policy.defaultReservedSchemes), "\(s)")
        }
        #expect(Policy.isReserved("banks", in: ["bank"]), "the secure variant of a configured scheme is reserved too")
        #expect(Policy.isNeverRouted("file"))
    }
}
