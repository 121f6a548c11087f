import Foundation
import DBusTestSupport

/// The test Flatpaks (`Clients/Flatpak/make-test-flatpaks.sh`: a runtime made of the host's own files and the
/// apps org.test.Caller, org.test.NoTalk and org.test.Handler), built offline and installed into
/// a temporary user installation once per test process (~20 s on a busy machine), removed at exit.
struct FlatpakInstallation: Sendable {
    /// The folder holding the repo, the installation and the build trees.
    let directory: URL
    /// `FLATPAK_USER_DIR`: the user installation the apps are installed in.
    var userDirectory: URL { directory.appendingPathComponent("user") }

    /// The environment `flatpak` needs to use this installation.
    var environment: [String: String] {
        ["FLATPAK_USER_DIR": userDirectory.path, "FLATPAK_SYSTEM_HELPER_ON_SESSION": "1",
         // flatpak's system-bus proxy stays off any real system bus.
         "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.path)/no-system-bus"]
    }

    /// The desktop entry flatpak exported for `appID` (with `X-Flatpak=` and the rewritten `Exec`).
    func exportedEntry(_ appID: String) throws -> String {
        try String(contentsOf: userDirectory.appendingPathComponent("exports/share/applications/\(appID).desktop"), encoding: .utf8)
    }

    /// The installation of this test process, built on first use.
    static func shared() async throws -> FlatpakInstallation { try await Builder.shared.installation() }

    private actor Builder {
        static let shared = Builder()
        private var task: Task<FlatpakInstallation, Error>?

        func installation() async throws -> FlatpakInstallation {
            if let task { return try await task.value }
            let task = Task { try await FlatpakInstallation.build() }
            self.task = task
            return try await task.value
        }
    }

    private static func build() async throws -> FlatpakInstallation {
        for tool in ["flatpak", "bwrap", "xdg-dbus-proxy", "unshare", "nsenter"] { _ = try Tools.path(of: tool) }
        for program in ["/usr/libexec/xdg-document-portal", "/usr/libexec/xdg-permission-store"] where !FileManager.default.isExecutableFile(atPath: program) {
            throw ToolError("\(program) is missing; run: apt-get install -y xdg-desktop-portal (make deps)")
        }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-flatpak-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        removeAtExit(dir.path)
        let script = Built.packageRoot.appendingPathComponent("Tests/ServiceTests/Clients/Flatpak/make-test-flatpaks.sh").path
        let r = try await Tools.run(["/bin/sh", script, dir.path])
        guard r.status == 0, r.stdout.contains("installed") else {
            throw ToolError("building the test Flatpaks failed (\(r.status)): \(r.stdout) \(r.stderr)")
        }
        return FlatpakInstallation(directory: dir)
    }
}

/// The installation's folder, removed when the test process exits.
nonisolated(unsafe) private var flatpakDirectoryToRemove: String?

private func removeAtExit(_ path: String) {
    flatpakDirectoryToRemove = path
    atexit {
        if let path = flatpakDirectoryToRemove { try? FileManager.default.removeItem(atPath: path) }
    }
}
