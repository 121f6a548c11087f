import Testing
@testable import SchemeBridgeCore

/// Splash on an X display with the helper installed; a notification otherwise.
@Suite struct LaunchImageModeTests {
    @Test func splashNeedsADisplayAndTheHelper() {
        #expect(LaunchImageMode.choose(environment: ["DISPLAY": ":0"], helper: "/usr/libexec/schemebridge-splash")
            == .splash(helper: "/usr/libexec/schemebridge-splash"))
        #expect(LaunchImageMode.choose(environment: ["DISPLAY": ":0"], helper: nil) == .notification)
        #expect(LaunchImageMode.choose(environment: ["DISPLAY": ""], helper: "/h") == .notification)
        #expect(LaunchImageMode.choose(environment: ["WAYLAND_DISPLAY": "wayland-0"], helper: "/h") == .notification)
    }
}
