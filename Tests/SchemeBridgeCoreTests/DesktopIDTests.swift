import Testing
@testable import SchemeBridgeCore

/// One desktop ID, its four spellings: app id, desktop file name, bus name, object path.
@Suite struct DesktopIDTests {
    @Test func appIDAndFileNameAreOneID() {
        #expect(DesktopID("org.example.App") == DesktopID("org.example.App.desktop"))
        #expect(DesktopID("org.example.App").fileName == "org.example.App.desktop")
        #expect(DesktopID("org.example.App.desktop").appID == "org.example.App")
        #expect(DesktopID.appID("org.example.App") == "org.example.App")
        #expect(DesktopID.fileName(appID: "org.example.App.desktop") == "org.example.App.desktop")
        #expect("\(DesktopID("firefox"))" == "firefox.desktop")
    }

    @Test func busNameAndObjectPathFollowTheSpec() {
        let id = DesktopID("org.example.my-app.desktop")
        #expect(id.busName == "org.example.my-app")
        #expect(id.objectPath == "/org/example/my_app")
        #expect(DesktopID.busName("org.example.Todo.desktop") == "org.example.Todo")
        #expect(DesktopID.objectPath("org.example.Todo") == "/org/example/Todo")
    }

    /// A `DBusActivatable` app is called at its id as a bus name (the rule: ``AppIDTests``).
    @Test func whichIDsMakeABusName() {
        #expect(DesktopID("org.example.my-app.desktop").makesBusName)
        #expect(DesktopID("org.example.my-app.desktop").validAppID?.text == "org.example.my-app")
        #expect(!DesktopID("todo.desktop").makesBusName && DesktopID("todo.desktop").validAppID == nil)
        #expect(!DesktopID("org.9example.App.desktop").makesBusName)
    }

    @Test func relativePathsBecomeIDs() {
        #expect(DesktopID(relativePath: "vendor/sub/app.desktop").fileName == "vendor-sub-app.desktop")
        #expect(DesktopID.make(relativePath: "app.desktop") == "app.desktop")
    }

    @Test func validationRefusesWhatCallersMustNotSend() {
        #expect(DesktopID(validating: "org.example.App.desktop") != nil)
        for bad in [".desktop", "app", "a/b.desktop", "a;b.desktop", "a=b.desktop", "a\u{1}.desktop",
                    String(repeating: "a", count: 248) + ".desktop"] {
            #expect(DesktopID(validating: bad) == nil, "\(bad)")
            #expect(!DesktopID(bad).isValid || bad == "app", "\(bad)")
        }
        #expect(DesktopID("app").isValid)
    }
}
