import Testing
import SchemeBridgeCore

/// How a launch image is shown in each kind of session (the rule the service follows).
@Suite struct LaunchFeedbackTests {
    @Test func theSplashNeedsAnXDisplayXwaylandCounts() {
        let x11 = ["DISPLAY": ":0"], xwayland = ["DISPLAY": ":1", "WAYLAND_DISPLAY": "wayland-0"]
        let wayland = ["WAYLAND_DISPLAY": "wayland-0"], emptyX = ["DISPLAY": "", "WAYLAND_DISPLAY": "wayland-0"]
        #expect(LaunchFeedback.Session(environment: x11) == .x11)
        #expect(LaunchFeedback.Session(environment: xwayland) == .xwayland)
        #expect(LaunchFeedback.Session(environment: wayland) == .wayland)
        #expect(LaunchFeedback.Session(environment: emptyX) == .wayland)
        #expect(LaunchFeedback.Session(environment: [:]) == .none)
        #expect(LaunchFeedback.mode(environment: x11, splashHelperInstalled: true) == .splash)
        #expect(LaunchFeedback.mode(environment: xwayland, splashHelperInstalled: true) == .splash)
        #expect(LaunchFeedback.mode(environment: wayland, splashHelperInstalled: true) == .notification)
        #expect(LaunchFeedback.mode(environment: [:], splashHelperInstalled: true) == .notification)
        #expect(LaunchFeedback.mode(environment: xwayland, splashHelperInstalled: false) == .notification)
    }
}
