import Foundation
import Glibc
import Testing
@testable import SchemeBridgeCore

/// Which process may be a device engine (``DeviceEngineRule``), and where what an engine reports
/// as received may be (``ReceivedPlaces``).
@Suite struct DeviceEngineRuleTests {
    static let gsconnect = "/usr/share/gnome-shell/extensions/gsconnect@andyholmes.github.io/service/daemon.js"

    @Test func onlyAProtectedKdeconnectdIsKDEConnect() {
        let real = EngineProcess(executable: "/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd", executableProtected: true)
        #expect(DeviceEngineRule.accepts(real, as: .kdeconnect))
        #expect(DeviceEngineRule.accepts(EngineProcess(executable: "/usr/bin/kdeconnectd", executableProtected: true), as: .kdeconnect))
        #expect(!DeviceEngineRule.accepts(real, as: .gsconnect))
        // A plain script: python is a system file, but it is not kdeconnectd.
        let script = EngineProcess(executable: "/usr/bin/python3.11", executableProtected: true, arguments: ["python3", "/home/u/fake.py"])
        #expect(DeviceEngineRule.refusal(of: script, as: .kdeconnect) == "its program is /usr/bin/python3.11, not kdeconnectd")
        // A copy the user could rewrite, or one in a sandbox.
        let copy = EngineProcess(executable: "/home/u/bin/kdeconnectd", executableProtected: false)
        #expect(DeviceEngineRule.refusal(of: copy, as: .kdeconnect)?.contains("not a system file only root can change") == true)
        var sandboxed = real
        sandboxed.sandboxed = true
        #expect(DeviceEngineRule.refusal(of: sandboxed, as: .kdeconnect) == "it runs in a Flatpak sandbox")
    }

    @Test func onlyGjsRunningAProtectedGSConnectServiceIsGSConnect() {
        func gjs(_ arguments: [String], protected: Set<Int>, exeProtected: Bool = true, program: String = "/usr/bin/gjs-console") -> EngineProcess {
            EngineProcess(executable: program, executableProtected: exeProtected, arguments: arguments, protectedArguments: protected)
        }
        #expect(DeviceEngineRule.accepts(gjs(["gjs", Self.gsconnect], protected: [1]), as: .gsconnect))
        #expect(DeviceEngineRule.accepts(gjs(["/usr/bin/gjs", "-m", Self.gsconnect], protected: [2]), as: .gsconnect))
        // The extension installed for the user alone: its files are the user's programs' to rewrite.
        let user = "/home/u/.local/share/gnome-shell/extensions/gsconnect@andyholmes.github.io/service/daemon.js"
        #expect(DeviceEngineRule.refusal(of: gjs(["gjs", user], protected: []), as: .gsconnect)?.contains("GSConnect installed for this user alone") == true)
        // Options that load other code first, another script, or no gjs at all.
        #expect(!DeviceEngineRule.accepts(gjs(["gjs", "-I", "/home/u/evil", Self.gsconnect], protected: [3]), as: .gsconnect))
        #expect(!DeviceEngineRule.accepts(gjs(["gjs", "-c", "print(1)"], protected: []), as: .gsconnect))
        #expect(!DeviceEngineRule.accepts(gjs(["gjs", "/usr/share/other/daemon.js"], protected: [1]), as: .gsconnect))
        #expect(!DeviceEngineRule.accepts(gjs(["gjs", Self.gsconnect], protected: [1], exeProtected: false), as: .gsconnect))
        #expect(!DeviceEngineRule.accepts(gjs(["python3", Self.gsconnect], protected: [1], program: "/usr/bin/python3.11"), as: .gsconnect))
        #expect(!DeviceEngineRule.accepts(gjs(["gjs", Self.gsconnect], protected: [1]), as: .kdeconnect))
    }

    /// The facts of a real process: its executable, whether that is protected, its command line
    /// and working directory, as `/proc` gives them.
    @Test func theFactsOfARealProcess() throws {
        let me = try #require(EngineProcess.gather(pid: getpid()))
        let exe = try #require(realpath("/proc/self/exe", nil).map { p in defer { free(p) }; return String(cString: p) })
        #expect(me.executable == exe)
        #expect(me.executableProtected == SystemPath.isProtected(exe))
        #expect(!me.sandboxed)
        #expect(me.arguments.first == CommandLine.arguments.first)
        #expect(me.workingDirectory == FileManager.default.currentDirectoryPath)
        #expect(!DeviceEngineRule.accepts(me, as: .kdeconnect), "the test runner is no engine")
        #expect(EngineProcess.gather(pid: Int32.max) == nil)
    }

    @Test func whereKDEConnectPutsWhatDevicesSend() throws {
        let tree = XDGTree(dataDirCount: 1)
        let dirs = XDGDirectories(environment: tree.environment)
        #expect(ReceivedPlaces.downloadDirectory(dirs) == tree.home + "/Downloads")
        tree.write(tree.configHome + "/user-dirs.dirs", "# written by xdg-user-dirs-update\nXDG_DOWNLOAD_DIR=\"$HOME/Incoming\"\n")
        #expect(ReceivedPlaces.downloadDirectory(dirs) == tree.home + "/Incoming")
        #expect(ReceivedPlaces.incomingPath(in: "[General]\nincoming_path=/srv/phone\n") == "/srv/phone")
        #expect(ReceivedPlaces.incomingPath(in: "incoming_path=file:///srv/my%20phone\n") == "/srv/my phone")
        #expect(ReceivedPlaces.incomingPath(in: "incoming_path=/srv/devices/%1/in\n") == "/srv/devices")
        #expect(ReceivedPlaces.incomingPath(in: "incoming_path=relative\n") == nil)
        tree.write(tree.configHome + "/kdeconnect/abc_123/kdeconnect_share/config", "[General]\nincoming_path=/srv/phone\n")
        let places = ReceivedPlaces.kdeconnect(dirs, deviceID: "abc_123", engineDirectory: "/run/engine")
        #expect(places.downloadDirectories.contains(tree.home + "/Incoming") && places.downloadDirectories.contains("/srv/phone"))
        #expect(!ReceivedPlaces.kdeconnect(dirs, deviceID: "other", engineDirectory: nil).downloadDirectories.contains("/srv/phone"))

        #expect(places.admits(.file("x"), openedPath: tree.home + "/Incoming/photo.jpg"))
        #expect(places.admits(.file("x"), openedPath: tree.home + "/Incoming/sub/photo.jpg"))
        #expect(!places.admits(.file("x"), openedPath: tree.home + "/Incoming"))
        #expect(!places.admits(.file("x"), openedPath: tree.home + "/IncomingX/photo.jpg"))
        #expect(!places.admits(.file("x"), openedPath: tree.home + "/.ssh/id_rsa"))
        #expect(places.admits(.text("x"), openedPath: "/run/engine/kdeconnect-aB3xY9.txt"))
        #expect(!places.admits(.text("x"), openedPath: "/run/engine/sub/kdeconnect-aB3xY9.txt"))
        #expect(!places.admits(.text("x"), openedPath: "/run/engine/notes.txt"))
        #expect(!places.admits(.text("x"), openedPath: "/run/engine/kdeconnect-aB3xY9.desktop"))
        #expect(!places.admits(.text("x"), openedPath: tree.home + "/Incoming/kdeconnect-aB3xY9.txt"), "text is only where the engine writes text")
        #expect(!ReceivedPlaces(downloadDirectories: [], textDirectory: nil).admits(.text("x"), openedPath: "/kdeconnect-aB3xY9.txt"))
    }

    /// A path is judged where the opened file really is: a symlink as the last part is not
    /// followed, and a symlinked folder on the way leads outside.
    @Test func aReceivedPathIsJudgedWhereTheFileIs() throws {
        let tree = XDGTree(dataDirCount: 1)
        let root = try #require(realpath(tree.root, nil).map { p in defer { free(p) }; return String(cString: p) })
        let downloads = root + "/Downloads", outside = root + "/private"
        tree.write(downloads + "/good.bin", "good")
        tree.write(outside + "/id_rsa", "secret")
        symlink(outside + "/id_rsa", downloads + "/key.bin")
        symlink(outside, downloads + "/folder")
        let places = ReceivedPlaces(downloadDirectories: [downloads], textDirectory: root)
        _ = try places.open(.file(downloads + "/good.bin"))
        for path in [outside + "/id_rsa", downloads + "/key.bin", downloads + "/folder/id_rsa", downloads + "/../private/id_rsa"] {
            #expect(throws: ServiceFailure.self, "\(path)") { _ = try places.open(.file(path)) }
        }
        #expect(throws: ServiceFailure.self) { _ = try places.open(.text(outside + "/id_rsa")) }
    }
}
