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

    /// A `DBusActivatable` app is called at its id as a bus name: which ids make one.
    @Test func whichIDsMakeABusName() {
        for good in ["org.example.Todo", "org.example.my-app", "a.b", "_x.y-z", "org.example.App_2"] {
            #expect(DesktopID.isValidBusName(good), "\(good)")
            #expect(DesktopID(good + ".desktop").makesBusName)
        }
        for bad in ["todo", "", ".a.b", "a..b", "a.b.", "9app.example", "org.9example.App", "org.example.Tödo", "org example.App",
                    ":1.42", "org.example.App+", String(repeating: "a.", count: 128) + "a"] {
            #expect(!DesktopID.isValidBusName(bad), "\(bad)")
        }
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
