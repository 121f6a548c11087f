import Foundation
import Testing
@testable import SchemeBridgeCore

@Suite struct CallerIdentityTests {
    @Test(arguments: [
        ("app-gnome-org.example.Todo-1234.scope", "org.example.Todo"),
        ("app-org.example.Todo-99.scope", "org.example.Todo"),
        ("app-kde-my\\x2dapp-abc.scope", "my-app"),
        ("app-org.example.Todo@ab12.service", "org.example.Todo"),
        ("app-gnome-firefox.service", "firefox"),
    ])
    func unitNames(_ unit: String, _ id: String) {
        #expect(CallerIdentity.appID(fromUnit: unit) == id)
    }

    @Test func notAppUnits() {
        for unit in ["session-2.scope", "user@1000.service", "app.slice", "app-.scope", "init.scope"] {
            #expect(CallerIdentity.appID(fromUnit: unit) == nil, "\(unit)")
        }
    }

    @Test func cgroupText() {
        let text = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Todo-4242.scope\n"
        #expect(CallerIdentity.appID(fromCgroup: text) == "org.example.Todo")
        #expect(CallerIdentity.appID(fromCgroup: "0::/user.slice/session-3.scope\n") == nil)
    }

    @Test func fakeProcTree() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-proc-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let flatpak = root.appendingPathComponent("77/root")
        try FileManager.default.createDirectory(at: flatpak, withIntermediateDirectories: true)
        try "[Application]\nname=org.example.Flat\nruntime=x\n".write(to: flatpak.appendingPathComponent(".flatpak-info"), atomically: true, encoding: .utf8)
        #expect(CallerIdentity.appID(pid: 77, procRoot: root.path) == "org.example.Flat")
        let scoped = root.appendingPathComponent("78")
        try FileManager.default.createDirectory(at: scoped, withIntermediateDirectories: true)
        try "0::/app.slice/app-org.example.Scoped-1.scope\n".write(to: scoped.appendingPathComponent("cgroup"), atomically: true, encoding: .utf8)
        #expect(CallerIdentity.appID(pid: 78, procRoot: root.path) == "org.example.Scoped")
    }

    @Test func realProcessFallsBackToItsExecutable() {
        let id = CallerIdentity.appID(pid: getpid())
        #expect(id != nil)
        #expect(CallerIdentity.appID(pid: 999_999_99) == nil)
    }

    @Test func baseNameMatchIsByComponent() {
        let base = Array("true".utf8)
        #expect(Registry.path("/bin/true", hasBaseName: base))
        #expect(Registry.path("true", hasBaseName: base))
        #expect(!Registry.path("/bin/untrue", hasBaseName: base))
        #expect(!Registry.path("/bin/true2", hasBaseName: base))
        #expect(!Registry.path("ue", hasBaseName: base))
        #expect(!Registry.path("/bin/true", hasBaseName: []))
    }

    @Test func installedApplicationRunningAnExecutable() throws {
        let tree = XDGTree(dataDirCount: 1)
        let entry = "[Desktop Entry]\nType=Application\nName=T\nMimeType=x-scheme-handler/t;\nExec="
        try (entry + "/bin/true %u\n").write(toFile: tree.apps(1) + "/abs.desktop", atomically: true, encoding: .utf8)
        try (entry + "true --x %u\n").write(toFile: tree.apps(1) + "/bare.desktop", atomically: true, encoding: .utf8)
        try (entry + "/bin/untrue %u\n").write(toFile: tree.apps(1) + "/other.desktop", atomically: true, encoding: .utf8)
        let registry = Registry(environment: tree.environment, watch: false)
        let truePath = FileSystem.realPath("/bin/true") ?? "/bin/true"
        #expect(registry.applicationIDs(executing: truePath) == ["abs.desktop", "bare.desktop"])
        #expect(registry.applicationIDs(executing: "/nonexistent/prog").isEmpty)
        // The lookup is served by a map of program names, built again after each change: an
        // entry added, one removed and one whose program changed are seen at once.
        try (entry + "/bin/true --new %u\n").write(toFile: tree.apps(1) + "/new.desktop", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: tree.apps(1) + "/bare.desktop")
        try (entry + "/bin/untrue %u\n").write(toFile: tree.apps(1) + "/abs.desktop", atomically: true, encoding: .utf8)
        registry.rescan()
        #expect(registry.applicationIDs(executing: truePath) == ["new.desktop"])
    }
}
