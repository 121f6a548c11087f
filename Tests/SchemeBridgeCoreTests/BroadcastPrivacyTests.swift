import Testing
@testable import SchemeBridgeCore

/// `[Privacy] BroadcastURLs`: what the broadcast URLHandled/URLFailed carry of a URL.
@Suite struct BroadcastPrivacyTests {
    @Test(arguments: [
        ("calcb://done?result=SECRET#x", "calcb://done"),
        ("https://user:pass@example.com:8443/a/b?code=123&state=x#frag", "https://example.com:8443/a/b"),
        ("https://a@b@example.com/p@q", "https://example.com/p@q"),
        ("viewer://?ReadPasteboardData#notes", "viewer://"),
        ("mailto:someone@example.com?subject=hi", "mailto:someone@example.com"),
        ("todolist:add", "todolist:add"),
        ("Todo+List.x://host/path", "Todo+List.x://host/path"),
        ("x://host#", "x://host"),
        ("no scheme here?secret", ""),
        ("1abc://x?y", ""),
        ("", ""),
    ])
    func redactedDropsUserinfoQueryAndFragment(_ url: String, _ expected: String) {
        #expect(BroadcastPrivacy.redacted(url) == expected)
    }

    @Test func eachModeSaysWhatIsBroadcastAndWhetherTheCallerGetsACopy() {
        let url = "calcb://done?result=SECRET"
        #expect(BroadcastPrivacy.plan(url, mode: .redacted) == ("calcb://done", true))
        #expect(BroadcastPrivacy.plan("calcb://done", mode: .redacted) == ("calcb://done", false))
        #expect(BroadcastPrivacy.plan(url, mode: .full) == (url, false))
        #expect(BroadcastPrivacy.plan(url, mode: .none) == (nil, true))
        #expect(BroadcastPrivacy.redacted("cannot open \(url) now", quoting: url) == "cannot open calcb://done now")
    }

    @Test func theConfigSetsTheModeRedactedByDefault() throws {
        var warnings: [String] = []
        #expect(try PolicyConfig.parse("", path: "c", warnings: &warnings).broadcastURLs == .redacted)
        for mode in BroadcastURLs.allCases {
            #expect(try PolicyConfig.parse("[Privacy]\nBroadcastURLs=\(mode.rawValue)\n", path: "c", warnings: &warnings).broadcastURLs == mode)
        }
        #expect(warnings.isEmpty, "\(warnings)")
        let bad = try PolicyConfig.parse("[Privacy]\nBroadcastURLs=everyone\nOther=1\n", path: "c", warnings: &warnings)
        #expect(bad.broadcastURLs == .redacted)
        #expect(warnings.contains { $0.contains("BroadcastURLs=everyone") } && warnings.contains { $0.contains("'Other'") }, "\(warnings)")
    }
}
