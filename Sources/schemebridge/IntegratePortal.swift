import CLinux
import DBus
import Glibc
import LinuxSystem
import SchemeBridgeCLIKit
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgePortalStore

/// `schemebridge integrate enable|disable|status --portal`: the core's ``PortalIntegration``
/// run by the command line itself (the user's files and the permission store on the session
/// bus; the service is not needed). The portal's version decides the way (`--portal-version`,
/// else `xdg-desktop-portal --version` of the program its D-Bus activation file starts).
struct IntegratePortal {
    let action: Integrate.Action
    let types: [String]
    let portalVersion: String?
    let client: ClientOptions
    let json: Bool

    /// The test hook: `SCHEMEBRIDGE_TEST_PORTAL_STOP_AT=N` stops the process (SIGSTOP) after its
    /// Nth durable step, for a test to kill it there.
    static let stopVariable = "SCHEMEBRIDGE_TEST_PORTAL_STOP_AT"

    func run() throws {
        let environment = Self.environment()
        let directories = XDGDirectories(environment: environment)
        let connection: BlockingConnection
        do { connection = try BlockingConnection(address: try ServiceClient.busAddress(client.address)) } catch let e as DBusError {
            throw ServiceClient.report(e, "cannot reach the permission store")
        }
        let stopAt = environment[Self.stopVariable].flatMap(Int.init)
        let store = PortalPermissionRules(table: PermissionStoreTable(connection: connection, timeout: ServiceClient.timeout(client.timeout)))
        var integration = PortalIntegration(directories: directories, store: store, step: { n in if n == stopAt { _ = raise(SIGSTOP) } })
        do {
            // The service re-syncs the published routes through the same record: one at a time.
            try PortalIntegration.locked(directories: directories) { try run(&integration, environment, directories) }
        } catch let error as PortalIntegrationError {
            Terminal.error("integrate --portal: \(error.message)")
            throw Reported(status: .failed)
        }
    }

    private func run(_ integration: inout PortalIntegration, _ environment: [String: String], _ directories: XDGDirectories) throws {
        switch action {
        case .enable:
            let way = try self.way(directories)
            let portals = environment["XDG_DESKTOP_PORTAL_DIR"] ?? "/usr/share/xdg-desktop-portal/portals"
            guard PortalSelection.isBackendInstalled(portalsDirectory: portals) else {
                Terminal.error("schemebridge.portal is not installed in \(portals): the portal would not find SchemeBridge's AppChooser (install SchemeBridge system-wide: sudo make install)")
                throw Reported(status: .failed)
            }
            let files: [PortalChange]
            do { files = try PortalSelection.files(way: way, directories: directories, currentDesktop: environment["XDG_CURRENT_DESKTOP"], portalsDirectory: portals) } catch {
                Terminal.error("cannot make SchemeBridge the portal's AppChooser: \(error.message)")
                throw Reported(status: .failed)
            }
            let routed = (try? Integration(directories: directories, ownID: Contract.ownDesktopID).check().routed) ?? []
            let plan = Self.plan(environment: environment, directories: directories, routedSchemes: routed)
            let publishedTypes = Set(plan.published.map(\.type))
            let asked = types.isEmpty ? plan.alwaysAsk : types.filter { !publishedTypes.contains($0) }
            let desktops = way == .environment ? ([PortalSelection.desktop] + PortalSelection.desktops(environment["XDG_CURRENT_DESKTOP"])).joined(separator: ":")
                : PortalSelection.desktops(environment["XDG_CURRENT_DESKTOP"]).joined(separator: ":")
            let outcome = try integration.enable(way: way, desktops: desktops, files: files, types: asked, routes: plan.published)
            if !json { for key in outcome.undone { Terminal.out("undone: \(key)") } }
            if !json {
                for key in outcome.done { Terminal.out("changed: \(key)") }
                for key in outcome.changed { Terminal.out("left alone: \(key)") }
                if outcome.done.contains(where: { !$0.hasPrefix("always-ask ") && !$0.hasPrefix("route ") }) {
                    Terminal.out(way == .environment
                        ? "restart the portal to use it: systemctl --user daemon-reload && systemctl --user restart xdg-desktop-portal (or log out and in)"
                        : "restart the portal to use it: systemctl --user restart xdg-desktop-portal (or log out and in)")
                }
            }
        case .disable:
            let outcome = try integration.disable()
            if !json {
                for key in outcome.done { Terminal.out("undone: \(key)") }
                for key in outcome.changed { Terminal.out("changed since (left alone): \(key)") }
            }
        case .status:
            break
        }
        let (record, changed) = try integration.status()
        report(record, changed: changed, path: integration.recordPath)
    }

    /// What to publish and mark (``PortalRoutePublishing``), from the user's `[Routes]`,
    /// remembered choices and installed entries.
    static func plan(environment: [String: String], directories: XDGDirectories, routedSchemes: [String]) -> PortalRoutePublishing.Plan {
        PortalRoutePublishing.plan(directories: directories, registry: Registry(environment: environment, watch: false, index: .disabled), routedSchemes: routedSchemes)
    }

    /// The way for the installed portal.
    private func way(_ directories: XDGDirectories) throws -> PortalSelection.Way {
        if let portalVersion {
            guard let way = PortalSelection.way(forVersion: portalVersion) else {
                Terminal.error("--portal-version takes a version such as 1.16.0")
                throw Reported(status: .usage)
            }
            return way
        }
        let program = PortalSelection.frontendProgram(directories: directories) ?? "/usr/libexec/xdg-desktop-portal"
        guard let out = Self.output(of: [program, "--version"]), let version = PortalSelection.version(fromOutput: out),
              let way = PortalSelection.way(forVersion: version) else {
            Terminal.error("cannot tell the version of \(program) (is xdg-desktop-portal installed?); name it with --portal-version")
            throw Reported(status: .failed)
        }
        return way
    }

    private func report(_ record: PortalIntegrationRecord?, changed: [String], path: String) {
        let asked = record?.changes.compactMap { c -> String? in if case .alwaysAsk(let t, _) = c { t } else { nil } } ?? []
        let files = record?.changes.compactMap { c -> String? in if case .file(let p, _, _) = c { p } else { nil } } ?? []
        let published = record?.changes.compactMap { c -> PortalPublishedRoute? in if case .route(let r, _) = c { r } else { nil } } ?? []
        if json {
            func list(_ l: [String]) -> JSON.Value { .array(l.map { .string($0) }) }
            JSON.out([("portal", .bool(record != nil)), ("way", record.map { .string($0.way.rawValue) } ?? .null),
                      ("desktops", record.map { .string($0.desktops) } ?? .null), ("files", list(files)), ("always_ask", list(asked)),
                      ("published", .array(published.map { .object([("type", .string($0.type)), ("app", .string($0.app)), ("handler", .string($0.handler.fileName))]) })),
                      ("changed", list(changed)), ("record", .string(path))])
            return
        }
        Terminal.out(Self.summary(record))
        if !files.isEmpty { Terminal.out("files: \(files.joined(separator: " "))") }
        if !asked.isEmpty { Terminal.out("always-ask: \(asked.joined(separator: " "))") }
        for r in published { Terminal.out("applied by the portal: \(r.type) from \(r.app) → \(r.handler)") }
        if !changed.isEmpty { Terminal.out("changed since (left alone): \(changed.joined(separator: " "))") }
    }

    /// `portal: on (…)` or `portal: off`.
    static func summary(_ record: PortalIntegrationRecord?) -> String {
        guard let record else { return "portal: off" }
        switch record.way {
        case .environment: return "portal: on — SchemeBridge is the portal's AppChooser and FileChooser (1.16: XDG_CURRENT_DESKTOP=\(record.desktops) for the portal)"
        case .portalsConf: return "portal: on — SchemeBridge is the portal's AppChooser and FileChooser (portals.conf)"
        }
    }

    /// A line for `integrate status` (without `--portal`): nil when nothing was done.
    static func statusLine() -> String? {
        let directories = XDGDirectories(environment: environment())
        guard let record = try? PortalIntegration.record(at: PortalIntegration.recordPath(directories: directories)) else { return nil }
        return summary(record)
    }

    /// The process's environment.
    static func environment() -> [String: String] {
        var out: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { out[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            p += 1
        }
        return out
    }

    /// The standard output of `argv` (run directly, no shell; at most 4 KiB); nil when it fails.
    static func output(of argv: [String]) -> String? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let status = cArgs.withUnsafeMutableBufferPointer { args in
            clinux_spawn_io(argv[0], args.baseAddress, environ, nil, -1, fds[1], -1, 0, &pid)
        }
        close(fds[1])
        defer { close(fds[0]) }
        guard status == 0 else { return nil }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while out.count < 4096 {
            let n = read(fds[0], &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        var code: Int32 = 0
        while waitpid(pid, &code, 0) < 0 && errno == EINTR {}
        return String(decoding: out, as: UTF8.self)
    }
}
