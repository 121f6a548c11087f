import Testing
import SchemeBridgeCore

/// The `parent-window` option's two forms, as portal dialogs take their `parent_window`: an X11
/// window's id in hexadecimal, a Wayland handle exported with xdg-foreign; anything else is
/// `InvalidArgs` naming the option.
@Suite struct ParentWindowTests {
    @Test func anX11WindowIsItsIdInHexadecimal() throws {
        #expect(try ParentWindow.parse("x11:1a00003") == .x11(0x1A00003))
        #expect(try ParentWindow.parse("x11:0x1A00003") == .x11(0x1A00003))
        // "12" is hexadecimal too: portals write "x11:%lx".
        #expect(try ParentWindow.parse("x11:12") == .x11(0x12))
        #expect(try ParentWindow.parse("x11:1fffffff") == .x11(ParentWindow.maximumXID))
        // The dialogs' message carries one form: lowercase, no 0x.
        #expect(try ParentWindow.normalized("x11:0X00A0B") == "x11:a0b")
    }

    @Test func aWaylandHandleIsTakenAsGiven() throws {
        #expect(try ParentWindow.parse("wayland:0e4d1c9a-5d2f-4c4e-9d8b-3d1f0a6b7c21") == .wayland("0e4d1c9a-5d2f-4c4e-9d8b-3d1f0a6b7c21"))
        #expect(try ParentWindow.normalized("wayland:{Kwin-Handle}") == "wayland:{Kwin-Handle}")
        let longest = String(repeating: "h", count: ParentWindow.maximumHandleBytes)
        #expect(try ParentWindow.parse("wayland:" + longest) == .wayland(longest))
    }

    @Test func emptyOrAbsentIsNoParent() throws {
        #expect(try ParentWindow.parse("") == nil)
        #expect(try ParentWindow.normalized(nil) == nil)
        #expect(try ParentWindow.normalized("") == nil)
    }

    @Test func anythingElseIsInvalidArgsNamingTheOption() {
        let bad = ["x11:", "x11:0", "x11:zz", "x11:-1", "x11:+1", "x11:20000000", "x11:123456789", "x11: 1a", "X11:1a", "wayland:", "wayland:a b",
                   "wayland:caf\u{E9}", "wayland:tab\there", "wayland:" + String(repeating: "h", count: ParentWindow.maximumHandleBytes + 1),
                   "mir:1", "1a00003", "x11", "wayland"]
        for text in bad {
            #expect(throws: OpenFailure.self, "\(text)") { try ParentWindow.parse(text) }
            do throws(OpenFailure) {
                _ = try ParentWindow.parse(text)
            } catch {
                #expect(error.kind == .invalidArgument)
                #expect(error.message.contains("option 'parent-window' must be 'x11:XID'") && error.message.contains("wayland:HANDLE"), "\(error.message)")
            }
        }
    }

    @Test func aRefusedValueIsQuotedShortAndPrintable() {
        do throws(OpenFailure) {
            _ = try ParentWindow.parse("evil\n" + String(repeating: "x", count: 500))
            Issue.record("accepted")
        } catch {
            #expect(!error.message.contains("\n") && error.message.contains("evil?xxx") && error.message.count < 300, "\(error.message)")
        }
    }
}
