import Foundation
import DBusTestSupport
import SchemeBridgeContract

/// A ``ServiceFixture`` whose bus lives in a mount namespace of its own with a private tmpfs on
/// `/run/user`, so that `XDG_RUNTIME_DIR=/run/user/UID` as in a real session (flatpak binds the
/// document portal's `by-app/APPID` there inside the sandbox, and `--file-forwarding` writes host
/// paths into argv). Everything the bus activates (the service, the document portal and the
/// permission store, by the bus's own activation files) runs in it; ``flatpak(_:)`` runs
/// `flatpak` there too. The test Flatpaks come from ``FlatpakInstallation``.
final class FlatpakFixture: @unchecked Sendable {
    let service: ServiceFixture
    let installation: FlatpakInstallation
    /// `XDG_RUNTIME_DIR` inside the namespace.
    static var runtimeDirectory: String { "/run/user/\(getuid())" }
    /// Where the document portal's documents are, for everybody in the namespace.
    static var documents: String { runtimeDirectory + "/doc" }

    /// The Flatpak variables of the namespace (the installation's, as `adjust` left them).
    let flatpakEnvironment: [String: String]

    /// `adjust`: changes to the Flatpak variables the bus, the service and ``flatpak(_:)`` get
    /// (e.g. `FLATPAK_SYSTEM_DIR`, or no `FLATPAK_USER_DIR`: flatpak's default, `$XDG_DATA_HOME/flatpak`);
    /// `dataDirsInHome`: see ``ServiceFixture/init(extraEnvironment:anyUser:dataDirsInHome:systemdActivation:unsetEnvironment:busLauncher:)``.
    init(adjust: (inout [String: String]) -> Void = { _ in }, dataDirsInHome: [String] = []) async throws {
        installation = try await FlatpakInstallation.shared()
        var env = installation.environment
        env["XDG_RUNTIME_DIR"] = Self.runtimeDirectory
        adjust(&env)
        flatpakEnvironment = env
        let uid = getuid()
        // The device suites' network namespaces (`ip netns`: mounts under /run/netns) are detached
        // here: the private copy would keep the mount of one the host deletes meanwhile, and
        // bubblewrap, binding /run into a sandbox, then fails to remount its vanished path
        // ("Can't bind mount /oldroot/run …: remount /newroot/run/netns/…: No such file or
        // directory", seen in a clean clone's CI with both suites running).
        let setup = "umount -l /run/netns 2>/dev/null; mkdir -p /run/user && mount -t tmpfs -o mode=755 tmpfs /run/user && mkdir -m 700 /run/user/\(uid) && exec \"$@\""
        service = try ServiceFixture(extraEnvironment: env, dataDirsInHome: dataDirsInHome,
                                     busLauncher: [try Tools.path(of: "unshare"), "--mount", "--propagation", "private", "--", "/bin/sh", "-c", setup, "sh"])
        // The portal's own activation files, without SystemdService= (no systemd here).
        for (name, program) in [("org.freedesktop.portal.Documents", "xdg-document-portal"),
                                ("org.freedesktop.impl.portal.PermissionStore", "xdg-permission-store")] {
            try service.bus.addService(name: name, exec: "/usr/libexec/\(program)")
        }
    }

    deinit { stop() }

    func stop() { service.stop() }

    /// The environment of a program run in the namespace: the tree's, the bus, the installation.
    var environment: [String: String] {
        var env = service.environment
        for (k, v) in flatpakEnvironment { env[k] = v }
        env["DBUS_SESSION_BUS_ADDRESS"] = service.bus.address
        return env
    }

    /// Runs `argv` in the bus's mount namespace.
    func inNamespace(_ argv: [String]) async throws -> ProcessResult {
        try await Tools.run([try Tools.path(of: "nsenter"), "--target", "\(service.bus.pid)", "--mount", "--"] + argv, environment: environment)
    }

    /// `flatpak ARGS…` in the namespace (e.g. `run --command=gdbus org.test.Caller call …`).
    func flatpak(_ arguments: [String]) async throws -> ProcessResult {
        try await inNamespace([try Tools.path(of: "flatpak")] + arguments)
    }

    /// `gdbus call` of a contract method from inside app `appID`'s sandbox.
    func sandboxedCall(_ appID: String, _ method: String, _ arguments: [String], interface: String = ServiceFixture.interface,
                       path: String = ServiceFixture.path) async throws -> ProcessResult {
        try await flatpak(["run", "--command=gdbus", appID, "call", "--session", "--timeout", "300", "--dest", ServiceFixture.name,
                           "--object-path", path, "--method", "\(interface).\(method)"] + arguments)
    }

    /// Installs the exported desktop entry of `appID` in the user's applications folder, as a
    /// desktop finds it in `$FLATPAK_USER_DIR/exports/share/applications`.
    func installExportedEntry(_ appID: String) throws {
        try installation.exportedEntry(appID).write(to: service.applications.appendingPathComponent("\(appID).desktop"), atomically: true, encoding: .utf8)
    }

    /// A file that `appID` wrote in its own data folder (`~/.var/app/ID/data`), once it exists.
    func appRecord(_ appID: String, _ name: String, timeout: Duration = Tools.eventCeiling) async -> String? {
        let url = service.root.appendingPathComponent(".var/app/\(appID)/data/\(name)")
        _ = await Tools.eventually(timeout: timeout) { FileManager.default.fileExists(atPath: url.path) }
        return try? String(contentsOf: url, encoding: .utf8)
    }

    /// The argv the sandboxed handler received (it writes it last).
    func handlerArgv() async -> [String]? {
        guard let text = await appRecord("org.test.Handler", "argv") else { return nil }
        return text.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
