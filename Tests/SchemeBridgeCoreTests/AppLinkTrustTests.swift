import Foundation
import Glibc
import Testing
@testable import SchemeBridgeCore

/// Issue 41: which symlinked entries may be `verified` (``AppLinkTrust``): a Flatpak installation
/// exports its entries as symlinks into the app's deployed files.
@Suite struct AppLinkTrustTests {
    /// Flatpak's layout: `exports/share/applications/ID.desktop` → `../../../app/ID/current/active/export/share/applications/ID.desktop`,
    /// `current` → `x86_64/stable`, `active` → a commit's folder.
    @Test func aSymlinkedEntryIsTrustedOnlyWhenEveryLinkOnTheWayIsInAProtectedFolder() throws {
        let tree = XDGTree(dataDirCount: 0)
        let base = tree.root.replacingOccurrences(of: "//", with: "/") + "/installation"
        let deployed = base + "/app/org.example.Todo/x86_64/stable/0123abcd/export/share/applications"
        tree.write(deployed + "/org.example.Todo.desktop", "[Desktop Entry]\n")
        tree.mkdir(base + "/exports/share/applications")
        try FileManager.default.createSymbolicLink(atPath: base + "/app/org.example.Todo/current", withDestinationPath: "x86_64/stable")
        try FileManager.default.createSymbolicLink(atPath: base + "/app/org.example.Todo/x86_64/stable/active", withDestinationPath: "0123abcd")
        let exported = base + "/exports/share/applications/org.example.Todo.desktop"
        try FileManager.default.createSymbolicLink(atPath: exported,
                                                   withDestinationPath: "../../../app/org.example.Todo/current/active/export/share/applications/org.example.Todo.desktop")
        let notUsers: (String) -> Bool = { _ in false }
        #expect(AppLinkTrust.protectedResolution(exported, isUsersSide: notUsers) == deployed + "/org.example.Todo.desktop")
        #expect(AppLinkTrust.protectedResolution(exported, isUsersSide: { $0.hasPrefix(base + "/app") }) == nil,
                "a link on the user's side is not trusted")
        // `current` in a folder another user may write: whoever owns it could point it anywhere.
        let app = base + "/app/org.example.Todo"
        #expect(chown(app, 65534, 65534) == 0)
        #expect(AppLinkTrust.protectedResolution(exported, isUsersSide: notUsers) == nil)
        #expect(chown(app, 0, 0) == 0)
        #expect(chmod(app, 0o777) == 0)
        #expect(AppLinkTrust.protectedResolution(exported, isUsersSide: notUsers) == nil, "a world-writable folder holds the link")
        #expect(chmod(app, 0o755) == 0)
        #expect(AppLinkTrust.protectedResolution(exported, isUsersSide: notUsers) != nil)
        // A dangling link, and a loop.
        try FileManager.default.createSymbolicLink(atPath: base + "/exports/share/applications/loop.desktop", withDestinationPath: "loop.desktop")
        #expect(AppLinkTrust.protectedResolution(base + "/exports/share/applications/loop.desktop", isUsersSide: notUsers) == nil)
    }
}
