import Foundation
import DBusTestSupport

/// A private bus and service with installed test apps that run `schemebridge pasteboard …`: the
/// service names an app (not our CLI) as the caller, so the runs of one app are one owner, as the
/// runs of one script are.
struct PasteboardCLIWorld {
    let f: ServiceFixture
    /// Installed apps (`org.example.Owner`, `org.example.Other`): each runs its arguments (not
    /// `exec`: it stays the CLI's parent), standard output into `$APP_STDOUT` and standard input
    /// from `$APP_STDIN` when set.
    let owner: String, other: String
    /// Our CLI as built.
    let cli: String
    /// What the apps see: the private bus, our CLI on PATH.
    let environment: [String: String]

    /// `serviceEnvironment`: added to what the service (and the handlers it starts) runs with.
    init(serviceEnvironment: [String: String] = [:]) throws {
        // Handlers the service starts find our CLI on PATH too.
        f = try ServiceFixture(extraEnvironment: serviceEnvironment.merging(["PATH": Built.programs.path + ":/usr/bin:/bin"]) { $1 })
        cli = try Built.executable("schemebridge")
        owner = try Self.app(f, "owner-app", "org.example.Owner")
        other = try Self.app(f, "other-app", "org.example.Other")
        environment = ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "DBUS_STARTER_ADDRESS": "", "DBUS_STARTER_BUS_TYPE": "",
                       "PATH": Built.programs.path + ":/usr/bin:/bin", "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": "",
                       "APP_STDIN": "", "APP_STDOUT": ""]
    }

    /// Installs app `id` whose program, `bin/<program>`, runs its arguments.
    static func app(_ f: ServiceFixture, _ program: String, _ id: String) throws -> String {
        let path = f.bin.appendingPathComponent(program).path
        try """
            #!/bin/sh
            "$@" < "${APP_STDIN:-/dev/stdin}" > "${APP_STDOUT:-/dev/stdout}"
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        try f.entry("\(id).desktop", "Name=\(id)\nExec=\(path) %u\n")
        return path
    }

    /// `app` runs `schemebridge args…`; `stdin`/`stdout` name files for binary data.
    func run(_ app: String, _ args: [String], stdin: String? = nil, stdout: String? = nil) async throws -> ProcessResult {
        var env = environment
        if let stdin { env["APP_STDIN"] = stdin }
        if let stdout { env["APP_STDOUT"] = stdout }
        return try await Tools.run([app, cli] + args, environment: env)
    }

    /// `schemebridge pasteboard args…` run by `app`.
    func pasteboard(_ app: String, _ args: String..., stdin: String? = nil, stdout: String? = nil) async throws -> ProcessResult {
        try await run(app, ["pasteboard"] + args, stdin: stdin, stdout: stdout)
    }

    /// A file under the fixture's root holding `text`.
    func file(_ name: String, _ text: String) throws -> String {
        let path = f.root.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `sha256sum` of the file at `path`.
    static func sha256(_ path: String) async throws -> String {
        let r = try await Tools.run(["sha256sum", path])
        return String(r.stdout.prefix(64))
    }

    /// `$XDG_STATE_HOME/schemebridge/pasteboards` of the service (HOME is the fixture's root):
    /// the folders of the persistent pasteboards that exist.
    var storedPasteboards: [String] {
        let dir = f.root.appendingPathComponent(".local/state/schemebridge/pasteboards").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }
    }
}
