import Foundation
import Testing
@testable import SchemeBridgeCore

/// "Always" is for an app, not for an interpreter (issue 37, item 3): identities that unrelated
/// programs share (``SharedIdentityRule``) are never remembered under and never found by `Exec`.
@Suite struct SharedIdentityTests {
    @Test func interpretersShellsTerminalsAndLaunchersHaveSharedIdentities() {
        for program in ["python3", "python3.11", "python3.12", "python", "perl", "perl5.36", "ruby", "ruby3.1", "node", "nodejs", "sh", "bash", "dash",
                        "zsh", "env", "flatpak-spawn", "gnome-terminal-server", "konsole", "xterm", "kgx", "schemebridge"] {
            #expect(SharedIdentityRule.isSharedProgram(program), "\(program)")
        }
        for program in ["firefox", "org.example.Notes", "asker-app", "python-notes", "kdeconnectd", "thunderbird", "gimp-2.10"] {
            #expect(!SharedIdentityRule.isSharedProgram(program), "\(program)")
        }
    }

    @Test func anEntryThatRunsOnlyAnInterpreterOrATerminalIsShared() {
        #expect(SharedIdentityRule.entryIsShared(exec: "/usr/bin/python3.11"))         // Debian's python3.11.desktop
        #expect(SharedIdentityRule.entryIsShared(exec: "python3 -i %F"))
        #expect(SharedIdentityRule.entryIsShared(exec: "gnome-terminal --window"))
        #expect(SharedIdentityRule.entryIsShared(exec: "kgx"))
        #expect(!SharedIdentityRule.entryIsShared(exec: "python3 /usr/share/notes/notes.py %U"), "an app that is a script names that app")
        #expect(!SharedIdentityRule.entryIsShared(exec: "/usr/bin/flatpak run --branch=stable --arch=x86_64 org.example.Notes %U"))
        #expect(!SharedIdentityRule.entryIsShared(exec: "firefox %u"))
        #expect(!SharedIdentityRule.entryIsShared(exec: nil))
    }

    @Test func whichIdentitiesCountAsShared() {
        let execs = ["python3.11": "/usr/bin/python3.11", "org.gnome.Terminal": "gnome-terminal", "org.example.Notes": "python3 /opt/notes/notes.py %U"]
        func shared(_ id: String?, sandboxed: Bool = false) -> Bool { SharedIdentityRule.isShared(id.flatMap(CallerID.init), sandboxed: sandboxed) { execs[$0.appID] } }
        #expect(shared(nil) && shared(""), "an unidentified caller")
        #expect(shared("/usr/bin/python3.11") && shared("/usr/bin/bash") && shared("/usr/bin/env"))
        #expect(shared("python3.11") && shared("org.gnome.Terminal"))
        #expect(!shared("org.example.Notes") && !shared("/opt/notes/bin/notes") && !shared("org.example.Unknown"))
        #expect(!shared("org.gnome.Terminal", sandboxed: true), "a sandboxed caller's Flatpak id is its own")
        // Nothing is remembered under a shared identity.
        #expect(Caller(busName: ":1.1", id: "/usr/bin/python3.11", sharedIdentity: true).rememberingID == nil)
        #expect(Caller(busName: ":1.1", id: "org.example.Notes").rememberingID == "org.example.Notes")
    }

    /// Debian 12's `python3.11.desktop` does not make every Python script "python3.11": an
    /// interpreter is never named by an entry's `Exec`, while an app's own program still is.
    @Test func anInterpreterIsNeverNamedByAnEntry() throws {
        let tree = XDGTree(dataDirCount: 1)
        let python = try #require(FileManager.default.destinationOfSymbolicLinkResolved("/usr/bin/python3"))
        tree.write(tree.apps(1) + "/python3.11.desktop", "[Desktop Entry]\nType=Application\nName=Python (v3.11)\nExec=\(python)\n")
        let tool = tree.bin + "/notes-tool"
        tree.write(tool, "#!/bin/sh\n")
        chmod(tool, 0o755)
        tree.write(tree.apps(1) + "/org.example.Notes.desktop", "[Desktop Entry]\nType=Application\nName=Notes\nExec=\(tool) %U\nMimeType=x-scheme-handler/notes;\n")
        let identifier = CallerIdentifier(ancestry: CallerAncestry(cliPath: "/nonexistent", ownAppIDs: []), registry: tree.registry(),
                                          rule: ExecIdentityRule(home: tree.home, userApplications: tree.apps(0)))
        #expect(identifier.installedApp(running: python) == nil)
        #expect(identifier.installedApp(running: tool) == "org.example.Notes")
        #expect(identifier.isShared(CallerID.executable(python)) && identifier.isShared("python3.11") && !identifier.isShared("org.example.Notes"))
    }
}

extension FileManager {
    /// `path` with every symlink resolved.
    func destinationOfSymbolicLinkResolved(_ path: String) -> String? {
        realpath(path, nil).map { p in defer { free(p) }; return String(cString: p) }
    }
}
