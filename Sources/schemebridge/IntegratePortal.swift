import CLinux
import DBus
import Glibc
import LinuxSystem
import SchemeBridgeCLIKit
import SchemeBridgeContract
import SchemeBridgeCore

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
        var integration = PortalIntegration(directories: directories, store: PermissionStoreClient(connection: connection, timeout: ServiceClient.timeout(client.timeout)),
                                            step: { n in if n == stopAt { _ = raise(SIGSTOP) } })
        do {
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
        } catch let error as PortalIntegrationError {
            Terminal.error("integrate --portal: \(error.message)")
            throw Reported(status: .failed)
        }
    }

    /// What to publish and mark (``PortalRoutePublishing``), from the user's `[Routes]`,
    /// remembered choices and installed entries.
    static func plan(environment: [String: String], directories: XDGDirectories, routedSchemes: [String]) -> PortalRoutePublishing.Plan {
        let config = PolicyConfig.read(PolicyStore.defaultPaths(directories: directories)).config
        let registry = Registry(environment: environment, watch: false, index: .disabled)
        let images = LaunchImageIndex()
        let imagesOn = config?.launchImages ?? true
        return PortalRoutePublishing.plan(
            routes: config?.routes ?? [], choices: ChoiceStore(path: ChoiceStore.defaultPath(directories: directories)).all, routedSchemes: routedSchemes,
            entry: { registry.entry(id: DesktopID(fileName: $0)) },
            showsLaunchImage: { entry, scheme in imagesOn && images.image(for: entry, scheme: scheme, scale: 1) != nil })
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
                      ("published", .array(published.map { .object([("type", .string($0.type)), ("app", .string($0.app)), ("handler", .string($0.handler + ".desktop"))]) })),
                      ("changed", list(changed)), ("record", .string(path))])
            return
        }
        Terminal.out(Self.summary(record))
        if !files.isEmpty { Terminal.out("files: \(files.joined(separator: " "))") }
        if !asked.isEmpty { Terminal.out("always-ask: \(asked.joined(separator: " "))") }
        for r in published { Terminal.out("applied by the portal: \(r.type) from \(r.app) → \(r.handler).desktop") }
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

/// The permission store's `desktop-used-apps` table over the session bus
/// (`org.freedesktop.impl.portal.PermissionStore`, xdg-permission-store): `Lookup` reads an
/// entry's data, `SetValue` replaces it (the app permissions stay), `Delete` removes the entry.
struct PermissionStoreClient: PortalPermissionStore {
    let connection: BlockingConnection
    let timeout: Duration
    static let name: BusName = "org.freedesktop.impl.portal.PermissionStore"
    static let path: ObjectPath = "/org/freedesktop/impl/portal/PermissionStore"
    static let interface: InterfaceName = "org.freedesktop.impl.portal.PermissionStore"
    static let table = "desktop-used-apps"
    static let key = "always-ask"

    /// The entry's app permissions and data; nil when there is no entry.
    private func lookup(_ type: String) throws(PortalIntegrationError) -> (permissions: DBusValue, data: DBusValue)? {
        do {
            let reply = try connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "Lookup",
                                            [.string(Self.table), .string(type)], timeout: timeout)
            guard reply.count == 2 else { throw PortalIntegrationError("the permission store's Lookup answered \(reply.count) values") }
            return (reply[0], reply[1].unwrapped)
        } catch let error as DBusError {
            if error.name.rawValue == "org.freedesktop.portal.Error.NotFound" { return nil }
            throw PortalIntegrationError("the permission store (\(Self.name)) cannot be read: \(error.message)")
        } catch let error as PortalIntegrationError {
            throw error
        } catch {
            throw PortalIntegrationError("\(error)")
        }
    }

    func alwaysAsk(_ type: String) throws(PortalIntegrationError) -> PortalAskState {
        guard let entry = try lookup(type) else { return .noEntry }
        return Self.state(of: entry.data)
    }

    static func state(of data: DBusValue) -> PortalAskState {
        switch data {
        case .byte(0): return .noData
        case .dictionary(.string, .variant, _):
            guard let value = data.stringDictionary?[key] else { return .unset }
            if case .boolean(let b) = value.unwrapped { return .set(b) }
            return .unsupported
        default: return .unsupported
        }
    }

    func setAlwaysAsk(_ type: String, _ state: PortalAskState) throws(PortalIntegrationError) {
        let entry = try lookup(type)
        // The data's other entries, in their order, without ours.
        var others: [DictEntry] = []
        if let data = entry?.data, case .dictionary(.string, .variant, let entries) = data {
            others = entries.filter { $0.key != .string(Self.key) }
        }
        let data: DBusValue
        switch state {
        case .set(let b):
            data = .dictionary(key: .string, value: .variant, others + [DictEntry(.string(Self.key), .variant(.boolean(b)))])
        case .unset:
            data = .dictionary(key: .string, value: .variant, others)
        case .noData, .noEntry:
            // No entry now: there is nothing to take out.
            guard let entry else { return }
            var noPermissions = entry.permissions.arrayElements?.isEmpty ?? false
            if case .dictionary(_, _, let e) = entry.permissions { noPermissions = e.isEmpty }
            if state == .noEntry, others.isEmpty, noPermissions {
                return try call("Delete", [.string(Self.table), .string(type)])
            }
            data = others.isEmpty ? .byte(0) : .dictionary(key: .string, value: .variant, others)
        case .unsupported:
            return
        }
        try call("SetValue", [.string(Self.table), .boolean(true), .string(type), .variant(data)])
    }

    func permission(_ type: String, app: String) throws(PortalIntegrationError) -> PortalAppPermission {
        guard let entry = try lookup(type) else { return .noEntry }
        return Self.permission(in: entry.permissions, app: app)
    }

    /// The app's strings in a Lookup's `a{sas}`.
    static func permission(in permissions: DBusValue, app: String) -> PortalAppPermission {
        guard case .dictionary(_, _, let entries) = permissions,
              let value = entries.first(where: { $0.key == .string(app) })?.value else { return .none }
        guard case .array(_, let items) = value else { return .none }
        return .strings(items.compactMap(\.string))
    }

    func setPermission(_ type: String, app: String, _ permission: PortalAppPermission) throws(PortalIntegrationError) {
        switch permission {
        case .strings(let strings):
            try call("SetPermission", [.string(Self.table), .boolean(true), .string(type), .string(app), .array(element: .string, strings.map { .string($0) })])
        case .none, .noEntry:
            guard let entry = try lookup(type) else { return }
            if case .strings = Self.permission(in: entry.permissions, app: app) {
                try call("DeletePermission", [.string(Self.table), .string(type), .string(app)])
            }
            guard permission == .noEntry, let after = try lookup(type) else { return }
            var empty = after.permissions.arrayElements?.isEmpty ?? false
            if case .dictionary(_, _, let e) = after.permissions { empty = e.isEmpty }
            if empty, Self.state(of: after.data) == .noData { try call("Delete", [.string(Self.table), .string(type)]) }
        }
    }

    private func call(_ member: MemberName, _ arguments: [DBusValue]) throws(PortalIntegrationError) {
        do {
            _ = try connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: member, arguments, timeout: timeout)
        } catch {
            throw PortalIntegrationError("the permission store's \(member.rawValue) failed: \(error.message)")
        }
    }
}
