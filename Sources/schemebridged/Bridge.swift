import DBus
import Logging
import SchemeBridgeCore
import Synchronization

/// The service's behaviour behind the D-Bus contract: validation, handler choice, launching
/// or D-Bus activation, and the signals that report each outcome.
final class Bridge: Sendable {
    let registry: Registry
    let router: URLRouter
    let connection: Connection
    let callers = CallerCache()
    let logger: Logger
    /// The environment handed to spawned handlers (before per-launch additions).
    let childEnvironment: [String: String]
    let searchPath: [String]
    let launcher = ProcessLauncher()
    let rateLimiter = LaunchRateLimiter()
    let policy: PolicyStore
    /// Launch images: the per-directory index and how they are shown.
    let launchImages = LaunchImageIndex()
    let presenter: LaunchImagePresenter
    /// The session's display scale (GDK_SCALE, QT_SCALE_FACTOR; Xft.dpi once known).
    let sessionScale: Atomic<Int>
    private let inFlight = Mutex(0)

    init(registry: Registry, connection: Connection, environment: [String: String], busAddress: String,
         policy: PolicyStore, logger: Logger) {
        self.registry = registry
        self.policy = policy
        self.router = URLRouter(registry: registry, ownDesktopIDs: [Contract.ownDesktopID], policyStore: policy)
        self.connection = connection
        self.logger = logger
        var env = environment
        for key in ["DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE", "DESKTOP_STARTUP_ID", "XDG_ACTIVATION_TOKEN", "SCHEMEBRIDGE_SOURCE"] {
            env.removeValue(forKey: key)
        }
        if env["DBUS_SESSION_BUS_ADDRESS"] == nil { env["DBUS_SESSION_BUS_ADDRESS"] = busAddress }
        self.childEnvironment = env
        self.searchPath = registry.directories.executableSearchPath
        self.presenter = LaunchImagePresenter(connection: connection, environment: env, logger: logger)
        // GDK_SCALE/QT_SCALE_FACTOR win; else the display's Xft.dpi, learned in the background.
        let explicitScale = DisplayScale.set(by: environment)
        self.sessionScale = Atomic(explicitScale ?? 1)
        if explicitScale == nil {
            Task.detached { [self] in
                guard let dpi = await presenter.xftDPI() else { return }
                let s = DisplayScale.from(environment: [:], xftDPI: dpi)
                sessionScale.store(s, ordering: .relaxed)
                logger.info("display scale \(s) (Xft.dpi \(dpi))")
            }
        }
    }

    /// The launch image `url` would show now ("" when none): its default handler's image for
    /// its scheme at the session's scale.
    func launchImage(for url: String) throws -> String {
        let u: SchemeURL
        do { u = try router.validate(url) } catch { throw BridgeError(error) }
        guard policy.current.launchImages, let entry = router.effectiveDefault(forScheme: u.scheme.name) else { return "" }
        return launchImages.image(for: entry, scheme: u.scheme.name, scale: sessionScale.load(ordering: .relaxed)) ?? ""
    }

    // MARK: queries (inline: in-memory lookups only)

    func canOpen(_ url: String) throws -> Bool {
        do { return try router.canOpen(url) } catch { throw BridgeError(error) }
    }

    /// `CanOpenURL` for `sender`: with query privacy on, an identified app learns only about
    /// the schemes its own entry lists in `X-SchemeBridge-QueriesSchemes=` (like iOS's
    /// `LSApplicationQueriesSchemes`); for anything else the answer is `false`.
    func canOpen(_ url: String, sender: String) throws -> Bool {
        let u: SchemeURL
        do { u = try router.validate(url) } catch { throw BridgeError(error) }
        let queryPrivacy = policy.current.queryPrivacy
        if queryPrivacy, callers.cached(sender) == nil {
            // Not identified yet (it connected before we started): identify it in the background
            // for its next calls; this answer cannot wait.
            let (connection, registry, callers) = (self.connection, self.registry, self.callers)
            Task { _ = await callers.caller(sender, connection: connection, registry: registry) }
        }
        if queryPrivacy, let appID = callers.cached(sender)?.appID,
           let entry = registry.entry(id: appID.hasSuffix(".desktop") ? appID : appID + ".desktop") {
            let declared = (entry.extensionKeys["X-SchemeBridge-QueriesSchemes"] ?? "")
                .split(separator: ";").map { $0.lowercased() }
            if !declared.contains(u.scheme.name) { return false }
        }
        return router.effectiveDefault(forScheme: u.scheme.name) != nil
    }

    func handlers(forScheme scheme: String) throws -> [String] {
        let s = try validScheme(scheme)
        return router.handlers(forScheme: s)
    }

    func defaultHandler(forScheme scheme: String) throws -> String {
        let s = try validScheme(scheme)
        return router.effectiveDefault(forScheme: s)?.id ?? ""
    }

    func validScheme(_ scheme: String) throws -> String {
        do { return try Scheme(scheme).name } catch {
            throw BridgeError.invalidArgs(error.description)
        }
    }

    func setDefault(scheme: String, desktopID: String) throws {
        let s = try validScheme(scheme)
        if let e = registry.entry(id: desktopID) {
            if router.routesBackToUs(e) {
                throw BridgeError.invalidHandler("'\(desktopID)' is SchemeBridge itself and cannot handle '\(s)'")
            }
            if router.isHijack(e, scheme: s) || Policy.isNeverRouted(s) {
                throw BridgeError.reservedScheme(RouteError.reservedScheme(scheme: s, desktopID: desktopID).description
                    + " (SetDefaultHandler over D-Bus cannot do that, so no program can hijack it this way)")
            }
        }
        do {
            try registry.setDefault(scheme: s, desktopID: desktopID)
        } catch {
            switch error {
            case .invalidScheme(let e): throw BridgeError.invalidArgs(e.description)
            case .invalidHandler: throw BridgeError.invalidHandler(error.description)
            case .writeFailed: throw DBusError(.failed, error.description)
            }
        }
    }

    // MARK: opening

    /// Options of `OpenURLWithOptions`, type-checked.
    struct OpenOptions {
        var handler: String?
        var activationToken: String?
        var annotation: DBusValue?
        var launchImage = true
        /// `scale`: the display scale to choose the launch image for (wins over the session's).
        var scale: Int?

        init(_ dict: [String: DBusValue]) throws {
            func string(_ key: String) throws -> String? {
                guard let v = dict[key]?.unwrappedOnceOrSelf else { return nil }
                guard case .string(let s) = v else {
                    throw BridgeError.invalidArgs("option '\(key)' must be a string (s), not '\(v.type)'")
                }
                return s
            }
            handler = try string("handler")
            activationToken = try string("activation-token")
            annotation = dict["annotation"]?.unwrappedOnceOrSelf
            if let v = dict["launch-image"]?.unwrappedOnceOrSelf {
                guard case .boolean(let b) = v else {
                    throw BridgeError.invalidArgs("option 'launch-image' must be a boolean (b), not '\(v.type)'")
                }
                launchImage = b
            }
            if let v = dict["scale"]?.unwrappedOnceOrSelf {
                switch v {
                case .uint32(let n): scale = Int(n)
                case .int32(let n): scale = Int(n)
                case .byte(let n): scale = Int(n)
                case .double(let d) where d.isFinite && d > 0 && d < 100: scale = Int(d.rounded())
                default:
                    throw BridgeError.invalidArgs("option 'scale' must be a number (u, i or d), not '\(v.type)'")
                }
                scale = scale.map(DisplayScale.clamp)
            }
            if let h = handler, h.isEmpty { handler = nil }
            if let t = activationToken, t.isEmpty || t.utf8.contains(where: { $0 < 0x20 }) { activationToken = nil }
        }
    }

    /// Opens `url` for `sender`; returns the results dictionary. Every failure is also
    /// announced with `URLFailed`, every success with `URLHandled`.
    func open(_ url: String, options rawOptions: [String: DBusValue], sender: String, method: String) async throws -> [String: DBusValue] {
        do {
            let options = try OpenOptions(rawOptions)
            return try await openChecked(url, options: options, sender: sender, method: method)
        } catch {
            let e = DBusError.from(error)
            logger.notice("could not open \(Self.shortened(url)): \(e.name.rawValue): \(e.message)")
            try? connection.emit(path: Contract.objectPath, interface: Contract.interface, member: "URLFailed",
                                 [.string(Self.sanitized(url)), .string(e.name.rawValue), .string(e.message)])
            throw e
        }
    }

    private func openChecked(_ url: String, options: OpenOptions, sender: String, method: String) async throws -> [String: DBusValue] {
        let plan: LaunchPlan
        do { plan = try router.plan(url, handler: options.handler, searchPath: searchPath) } catch { throw BridgeError(error) }
        let caller = await callers.caller(sender, connection: connection, registry: registry)
        guard Policy.allows(caller: caller.appID, entry: plan.entry) else {
            throw BridgeError.accessDenied("\(plan.entry.name ?? plan.entry.id) (\(plan.entry.id)) accepts URLs only from "
                + "\(plan.entry.extensionKeys["X-SchemeBridge-AllowedCallers"] ?? "")" + "; the caller is \(caller.appID ?? "unidentified")")
        }
        let config = policy.current
        guard rateLimiter.allow(caller.appID ?? sender, rate: config.maxLaunchRate, burst: config.launchBurst) else {
            throw BridgeError.rateLimited("too many launches from \(caller.appID ?? sender); slow down and try again in a moment")
        }
        let admitted = inFlight.withLock { n -> Bool in
            if n >= config.maxConcurrentLaunches { return false }
            n += 1
            return true
        }
        guard admitted else {
            throw BridgeError.rateLimited("\(config.maxConcurrentLaunches) launches are already in progress; try again in a moment")
        }
        defer { inFlight.withLock { $0 -= 1 } }
        var details: [String: DBusValue] = ["method": .string(method), "launch-image": .string("")]
        details["source"] = .string(caller.appID ?? "")
        var results: [String: DBusValue] = ["handler": .string(plan.entry.id), "launch-image": .string("")]
        let scheme = plan.url.scheme.name

        // The launch image. A splash needs a startup id that the handler gets as
        // DESKTOP_STARTUP_ID: the caller's activation token, else a fresh one.
        let image = (options.launchImage && config.launchImages)
            ? launchImages.image(for: plan.entry, scheme: scheme, scale: options.scale ?? sessionScale.load(ordering: .relaxed)) : nil
        var splashHelper: String? = nil
        if image != nil, case .splash(let helper) = presenter.mode { splashHelper = helper }
        let startupID = options.activationToken ?? (splashHelper != nil ? presenter.newStartupID() : nil)
        /// Puts the image up (splash or notification) for a handler being started; returns
        /// the splash's pid when there is one, and whether the image is shown.
        func present(handlerPID: Int32?) async -> (splash: Int32?, shown: Bool) {
            guard let image else { return (nil, false) }
            if let splashHelper, let startupID {
                let pid = presenter.showSplash(helper: splashHelper, image: image, pid: handlerPID, startupID: startupID,
                                               entry: plan.entry, config: config)
                return (pid, pid != nil)
            }
            return (nil, await presenter.notify(image: image, entry: plan.entry))
        }
        var shown = false

        switch plan.action {
        case .spawn(let commands):
            var pids: [UInt32] = []
            for command in commands {
                var env = childEnvironment
                for (k, v) in command.environment { env[k] = v }
                if let token = options.activationToken { env["XDG_ACTIVATION_TOKEN"] = token }
                if let startupID { env["DESKTOP_STARTUP_ID"] = startupID }
                if let source = caller.appID { env["SCHEMEBRIDGE_SOURCE"] = source }
                let name = plan.entry.id
                let log = logger
                do {
                    let pid = try launcher.spawn(argv: command.argv, environment: env, workingDirectory: command.workingDirectory,
                                                 onExit: { code in
                                                     if code != 0 { log.info("handler \(name) exited with status \(code)") }
                                                 })
                    pids.append(UInt32(bitPattern: pid))
                } catch {
                    throw BridgeError.launchFailed("cannot start \(plan.entry.name ?? name) (\(name)): \(error.reason)")
                }
            }
            if let first = pids.first {
                results["pid"] = .uint32(first)
                details["pid"] = .uint32(first)
            }
            shown = await present(handlerPID: pids.first.map { Int32(bitPattern: $0) }).shown
            details["launch"] = .string("spawn")
        case .activate(let busName, let objectPath):
            // The app may take a while to start on activation: the image goes up first, and
            // comes down at once when the activation fails.
            let presented = await present(handlerPID: nil)
            shown = presented.shown
            do {
                try await activate(plan, busName: busName, objectPath: objectPath, options: options, startupID: startupID, source: caller.appID)
            } catch {
                if let splash = presented.splash { presenter.takeDown(splash: splash) }
                throw error
            }
            details["launch"] = .string("dbus-activation")
            if let pid = await pidOf(busName) {
                results["pid"] = .uint32(pid)
                details["pid"] = .uint32(pid)
            }
        }
        if shown, let image {
            results["launch-image"] = .string(image)
            details["launch-image"] = .string(image)
        }
        logger.info("opened \(Self.shortened(url)) with \(plan.entry.id) for \(caller.appID ?? sender)")
        try? connection.emit(path: Contract.objectPath, interface: Contract.interface, member: "URLHandled",
                             [.string(plan.url.string), .string(scheme), .string(plan.entry.id), .vardict(details)])
        return results
    }

    private func activate(_ plan: LaunchPlan, busName: String, objectPath: String, options: OpenOptions, startupID: String?, source: String?) async throws {
        guard let name = try? BusName(busName), let path = try? ObjectPath(objectPath) else {
            throw BridgeError.launchFailed("\(plan.entry.id) is DBusActivatable but its id does not make a valid bus name")
        }
        var platform: [String: DBusValue] = [:]
        if let token = options.activationToken { platform["activation-token"] = .string(token) }
        if let startupID { platform["desktop-startup-id"] = .string(startupID) }
        if let source { platform["source"] = .string(source) }
        if let annotation = options.annotation { platform["annotation"] = annotation }
        do {
            _ = try await connection.call(destination: name, path: path, interface: "org.freedesktop.Application", member: "Open",
                                          [.strings([plan.url.string]), .vardict(platform)], timeout: .seconds(25))
        } catch {
            throw BridgeError.launchFailed("\(plan.entry.name ?? plan.entry.id) (\(plan.entry.id)) did not open the URL over D-Bus: \(error.name.rawValue): \(error.message)")
        }
    }

    private func pidOf(_ busName: String) async -> UInt32? {
        guard let reply = try? await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", [.string(busName)], timeout: .seconds(2)),
              case .uint32(let pid)? = reply.first else { return nil }
        return pid
    }

    // MARK: helpers

    /// A URL safe to put in a log line or a signal: valid UTF-8 without NUL, at most 64 KiB.
    static func sanitized(_ url: String) -> String {
        var s = url.utf8.contains(0) ? String(url.unicodeScalars.filter { $0 != "\0" }) : url
        if s.utf8.count > SchemeURL.maximumByteCount { s = String(decoding: s.utf8.prefix(SchemeURL.maximumByteCount), as: UTF8.self) }
        return s
    }

    static func shortened(_ url: String) -> String {
        let clean = String(url.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return clean.count > 200 ? String(clean.prefix(200)) + "…" : clean
    }
}

extension BridgeError {
    init(_ error: RouteError) {
        switch error {
        case .invalidURL(let e): self = .invalidURL(e.description)
        case .noHandler(let scheme): self = .noHandler(scheme: scheme)
        case .invalidHandler: self = .invalidHandler(error.description)
        case .noTerminal: self = .launchFailed(error.description)
        case .reservedScheme: self = .reservedScheme(error.description)
        }
    }
}

extension DBusValue {
    /// The value inside a variant, or the value itself.
    var unwrappedOnceOrSelf: DBusValue {
        if case .variant(let inner) = self { return inner }
        return self
    }
}
