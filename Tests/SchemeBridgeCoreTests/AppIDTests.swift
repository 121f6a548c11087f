import Testing
@testable import SchemeBridgeCore

/// ``AppID``: the one rule for an application id as Flatpak and D-Bus use it.
@Suite struct AppIDTests {
    @Test func acceptsReverseDNSNames() throws {
        for good in ["org.example.Todo", "org.example.my-app", "a.b", "_x.y-z", "org.example.App_2", "io.github.user.App",
                     "org.example.desktop", String(repeating: "a.", count: 127) + "a"] {
            let id = try #require(AppID(good), "\(good)")
            #expect(id.text == good && id.busName == good && "\(id)" == good)
            #expect(AppID.isValid(good))
        }
    }

    @Test func refusesWhatIsNoAppID() {
        for bad in ["todo", "", ".", ".a.b", "a..b", "a.b.", "9app.example", "org.9example.App", "org.example.Tödo", "org example.App",
                    ":1.42", "org.example.App+", "org/example.App", "org.example.App.desktop/", "a.b\u{0}",
                    String(repeating: "a.", count: 128) + "a"] {
            #expect(AppID(bad) == nil, "\(bad)")
            #expect(!AppID.isValid(bad), "\(bad)")
        }
    }

    @Test func namesItsObjectPathAndDesktopFile() throws {
        let id = try #require(AppID("org.example.my-app"))
        #expect(id.objectPath == "/org/example/my_app")
        #expect(id.desktopID == DesktopID(fileName: "org.example.my-app.desktop"))
        let tricky = try #require(AppID("org.example.desktop"))
        #expect(tricky.desktopID.fileName == "org.example.desktop.desktop" && tricky.objectPath == "/org/example/desktop")
    }

    /// The entries' `X-Flatpak=` and `DBusActivatable` ids go through the same rule.
    @Test func isTheRuleOfFlatpakAndBusNames() {
        for text in ["org.example.Todo", "todo", "org.9x.App", "a-b.c"] {
            #expect(DesktopID(text + ".desktop").makesBusName == AppID.isValid(text), "\(text)")
        }
    }
}

extension AppIDTests {
    /// A sandboxed caller's app id is an ``AppID`` only when valid (a reply through its
    /// xdg-dbus-proxy is matched against the handler's `X-Flatpak=` id, which always is one).
    @Test func aSandboxedCallersAppIDIsOneWhenValid() {
        #expect(Caller(busName: ":1.1", id: "org.example.App", sandboxed: true).sandboxAppID?.text == "org.example.App")
        #expect(Caller(busName: ":1.1", id: "org.example.App").sandboxAppID == nil, "not sandboxed")
        #expect(Caller(busName: ":1.1", id: "/usr/bin/app", sandboxed: true).sandboxAppID == nil)
        #expect(Caller(busName: ":1.1", id: nil, sandboxed: true).sandboxAppID == nil)
    }
}
