import Foundation
import Testing
@testable import SchemeBridgeCore

@Suite struct SetDefaultTests {
    static let userFile = """
    # Hand-written; keep me.
    [Default Applications]
    text/html=firefox.desktop
    x-scheme-handler/todo=a.desktop

    [X-Unknown Group]
    Some Key = some value
    Name[de]=x

    [Added Associations]
    image/png=eog.desktop;
    x-scheme-handler/todo=a.desktop;
    [Removed Associations]
    x-scheme-handler/todo=b.desktop;c.desktop;
    # trailing comment without newline
    """

    func tree() -> XDGTree {
        let t = XDGTree()
        for id in ["a", "b", "c"] { t.entry(1, "\(id).desktop", schemes: ["todo"]) }
        t.entry(1, "other.desktop", schemes: ["other"])
        return t
    }

    @Test func preservesEverythingElseByteForByte() throws {
        let t = tree()
        let path = t.configHome + "/mimeapps.list"
        t.write(path, SetDefaultTests.userFile)
        let r = t.registry()
        #expect(r.handlers(forScheme: "todo") == ["a.desktop"])
        #expect(r.recentWarnings.isEmpty)
        let result = try r.setDefault(scheme: "ToDo", desktopID: "b.desktop")
        #expect(result.defaultHandler == "b.desktop")
        #expect(r.defaultHandler(forScheme: "todo") == "b.desktop")
        let expected = SetDefaultTests.userFile
            .replacingOccurrences(of: "x-scheme-handler/todo=a.desktop\n", with: "x-scheme-handler/todo=b.desktop\n")
            .replacingOccurrences(of: "x-scheme-handler/todo=a.desktop;\n", with: "x-scheme-handler/todo=b.desktop;a.desktop;\n")
            .replacingOccurrences(of: "x-scheme-handler/todo=b.desktop;c.desktop;\n", with: "x-scheme-handler/todo=c.desktop;\n")
        #expect(t.read(path) == expected)
        // Setting the same default again changes nothing.
        try r.setDefault(scheme: "todo", desktopID: "b.desktop")
        #expect(t.read(path) == expected)
        // No temporary files are left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: t.configHome).filter { $0 != "mimeapps.list" }
        #expect(leftovers.isEmpty)
    }

    @Test func replacesAtomicallyKeepingPermissions() throws {
        let t = tree()
        let path = t.configHome + "/mimeapps.list"
        t.write(path, "[Default Applications]\n")
        chmod(path, 0o600)
        var before = stat()
        stat(path, &before)
        try t.registry().setDefault(scheme: "todo", desktopID: "c.desktop")
        var after = stat()
        stat(path, &after)
        #expect(before.st_ino != after.st_ino, "written through a new file renamed over the old one")
        #expect(after.st_mode & 0o777 == 0o600)
        #expect(t.read(path) == "[Default Applications]\nx-scheme-handler/todo=c.desktop\n\n[Added Associations]\nx-scheme-handler/todo=c.desktop;\n")
    }

    @Test func createsMissingDirectoryAndFile() throws {
        let t = tree()
        try FileManager.default.removeItem(atPath: t.configHome)
        let r = t.registry()
        try r.setDefault(scheme: "todo", desktopID: "c.desktop")
        #expect(t.read(t.configHome + "/mimeapps.list") == "[Default Applications]\nx-scheme-handler/todo=c.desktop\n\n[Added Associations]\nx-scheme-handler/todo=c.desktop;\n")
        #expect(r.defaultHandler(forScheme: "todo") == "c.desktop")
    }

    @Test func followsSymlinks() throws {
        let t = tree()
        let real = t.root + "/dotfiles/mimeapps.list"
        t.write(real, "# from dotfiles\n")
        let link = t.configHome + "/mimeapps.list"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../dotfiles/mimeapps.list")
        try t.registry().setDefault(scheme: "todo", desktopID: "b.desktop")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../dotfiles/mimeapps.list")
        #expect(t.read(real)?.hasPrefix("# from dotfiles\n\n[Default Applications]\nx-scheme-handler/todo=b.desktop\n") == true)
        // A dangling link: the file is created at its target.
        let u = tree()
        let dangling = u.configHome + "/mimeapps.list"
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: u.root + "/elsewhere/new/mimeapps.list")
        try u.registry().setDefault(scheme: "todo", desktopID: "a.desktop")
        #expect(u.read(u.root + "/elsewhere/new/mimeapps.list")?.contains("x-scheme-handler/todo=a.desktop\n") == true)
    }

    @Test func failureLeavesOldStateIntact() throws {
        let t = tree()
        // mimeapps.list is a directory: nothing can be written, nothing is touched.
        t.mkdir(t.configHome + "/mimeapps.list/keep")
        let r = t.registry()
        #expect(throws: SetDefaultError.self) { try r.setDefault(scheme: "todo", desktopID: "a.desktop") }
        do {
            try r.setDefault(scheme: "todo", desktopID: "a.desktop")
        } catch {
            guard case .writeFailed(let path, _) = error else {
                Issue.record("expected writeFailed, got \(error)")
                return
            }
            #expect(path == t.configHome + "/mimeapps.list")
            #expect(error.description.contains("left as it was"))
        }
        #expect(FileManager.default.fileExists(atPath: t.configHome + "/mimeapps.list/keep"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.configHome) == ["mimeapps.list"])
        // Symlink loop.
        let u = tree()
        try FileManager.default.createSymbolicLink(atPath: u.configHome + "/mimeapps.list", withDestinationPath: u.configHome + "/loop")
        try FileManager.default.createSymbolicLink(atPath: u.configHome + "/loop", withDestinationPath: u.configHome + "/mimeapps.list")
        #expect(throws: SetDefaultError.self) { try u.registry().setDefault(scheme: "todo", desktopID: "a.desktop") }
    }

    @Test func refusesIneligibleHandlers() throws {
        let t = tree()
        t.entry(1, "hidden.desktop", schemes: ["todo"], extra: "Hidden=true")
        t.entry(1, "tryexec.desktop", schemes: ["todo"], extra: "TryExec=/nonexistent")
        t.write(t.apps(1) + "/link.desktop", "[Desktop Entry]\nType=Link\nURL=x\n")
        t.list(t.configDir + "/mimeapps.list", added: ["todo": "other.desktop"])
        let r = t.registry()
        func reason(_ scheme: String, _ id: String) -> String? {
            do {
                try r.setDefault(scheme: scheme, desktopID: DesktopID(fileName: id))
                return nil
            } catch {
                return error.description
            }
        }
        #expect(reason("todo", "missing.desktop")?.contains("no such application is installed") == true)
        #expect(reason("todo", "hidden.desktop")?.contains("Hidden=true") == true)
        #expect(reason("todo", "tryexec.desktop")?.contains("TryExec") == true)
        #expect(reason("todo", "link.desktop")?.contains("not an application") == true)
        #expect(reason("todo", "../evil") == "'../evil' cannot be the default for 'todo': not a valid desktop ID")
        #expect(reason("to do", "a.desktop")?.contains("not a valid URL scheme") == true)
        #expect(reason("nothing", "a.desktop") == "'a.desktop' cannot be the default for 'nothing': it does not declare MimeType=x-scheme-handler/nothing")
        #expect(!FileManager.default.fileExists(atPath: t.configHome + "/mimeapps.list"))
        // An application associated through [Added Associations] may be made the default.
        #expect(reason("todo", "other.desktop") == nil)
        #expect(r.defaultHandler(forScheme: "todo") == "other.desktop")
    }

    @Test func reportsADesktopSpecificOverride() throws {
        let t = tree()
        t.desktop = "GNOME"
        t.list(t.configHome + "/gnome-mimeapps.list", defaults: ["todo": "c.desktop"])
        let r = t.registry()
        let result = try r.setDefault(scheme: "todo", desktopID: "a.desktop")
        #expect(result.defaultHandler == "c.desktop")
    }
}
