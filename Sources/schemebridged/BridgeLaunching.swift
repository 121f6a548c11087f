import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import Synchronization

/// Starting what the broker admitted: spawning or D-Bus activation, the launch image, reply and
/// x-callback watches, pasteboard grants for the started handler, and `URLHandled`.
extension Bridge {
    /// Starts what `admission` says and reports it.
    /// `pasteboard`: a pasteboard the started handler may read (its process, or the connection
    /// that owns its activated name).
    func launch(_ admission: Admission, annotation: DBusValue?, caller: Caller, method: MemberName, reply: UInt64?,
                pasteboard: String? = nil, contentType: String? = nil) async throws(DBusError) -> OpenResults {
        let (plan, context) = (admission.plan, admission.context)
        var results = OpenResults(handler: plan.entry.id)
        var details: [String: DBusValue] = [URLHandled.Key.method: .string(method.rawValue), URLHandled.Key.source: .string(caller.appID ?? "")]
        if let contentType { details[URLHandled.Key.contentType] = .string(contentType) }
        let launchKind: URLHandled.Launch
        var shown = false

        switch plan.action {
        case .spawn(let commands):
            var pids: [Int32] = []
            for command in commands {
                let name = plan.entry.id
                let (log, replies, store) = (logger, self.replies, pasteboards.store)
                // The first process is the one a reply request watches, and its callbacks' handler.
                let first = pids.isEmpty
                let watched = first ? reply : nil
                let (routes, group) = (broker.callbackRoutes, admission.callbackGroup)
                let held = Mutex<HandlerProcess?>(nil)
                // The pid, for dropping its pasteboard grant when it ends (before it can be reused).
                let started = Mutex<Int32?>(nil)
                do {
                    pids.append(try launcher.spawn(argv: command.argv, environment: context.environment(base: childEnvironment, command: command),
                                                   workingDirectory: command.workingDirectory, onStart: { pid in
                                                       if let pasteboard { store.addLaunchGrant(pasteboard, .process(pid)) }
                                                       started.withLock { $0 = pid }
                                                       // Held by a pidfd before it can be reaped: a reused pid is never it.
                                                       guard first else { return }
                                                       let process = HandlerProcess(pid: pid, sandboxAppID: plan.entry.flatpakAppID)
                                                       held.withLock { $0 = process }
                                                       if let group { routes.started(group, handler: .spawned(process)) }
                                                   }, onExit: { code in
                                                       if pasteboard != nil, let pid = started.withLock({ $0 }) { store.dropLaunchGrant(.process(pid)) }
                                                       if code != 0 { log.info("handler \(name) exited with status \(code)") }
                                                       if let watched { replies.handlerExited(watched, status: code) }
                                                   }))
                    if let watched, let process = held.withLock({ $0 }) { replies.started(watched, handler: .spawned(process)) }
                } catch {
                    throw ContractError.launchFailed("cannot start \(plan.entry.name ?? name) (\(name)): \(error.reason)")
                }
            }
            for pid in pids { recentLaunches.record(url: plan.url.string, entry: plan.entry, pid: pid) }
            results.pid = pids.first.map { UInt32(bitPattern: $0) }
            shown = await present(admission, handlerPID: pids.first).shown
            launchKind = .spawn
        case .activate(let busName, let objectPath):
            // The app may take a while to start on activation: the image goes up first, and
            // comes down at once when the activation fails.
            let presented = await present(admission, handlerPID: nil)
            shown = presented.shown
            if let reply { replies.started(reply, handler: .activating(busName: busName)) }
            if let group = admission.callbackGroup { broker.callbackRoutes.started(group, handler: .activating(busName: busName)) }
            recentLaunches.record(url: plan.url.string, entry: plan.entry, busName: busName)
            if let pasteboard {
                // The app may read inside its Open: start it first, and grant its connection.
                await grantActivated(busName, pasteboard: pasteboard)
            }
            do {
                try await activate(plan, busName: busName, objectPath: objectPath, context: context, annotation: annotation)
            } catch {
                if let splash = presented.splash { presenter.takeDown(splash: splash) }
                throw error
            }
            results.pid = await pidOf(busName)
            if let pid = results.pid { recentLaunches.activated(url: plan.url.string, busName: busName, pid: Int32(bitPattern: pid)) }
            launchKind = .dbusActivation
            if let reply { await replies.activated(reply, busName: busName, pid: results.pid) }
            if let group = admission.callbackGroup, let owner = await replies.ownerOf(busName) {
                broker.callbackRoutes.started(group, handler: .activated(owner: owner, process: results.pid.map { HandlerProcess(pid: Int32(bitPattern: $0)) }))
            }
        }
        if shown, let image = admission.image { results.launchImage = image }
        broker.usedActivationTokens.record(context.activationToken)  // the handler's window takes focus with it
        details[URLHandled.Key.launch] = .string(launchKind.rawValue)
        details[URLHandled.Key.launchImage] = .string(results.launchImage)
        if let pid = results.pid { details[URLHandled.Key.pid] = .uint32(pid) }
        logger.info("opened \(URLText.shortened(plan.url.string)) with \(plan.entry.id) for \(caller.displayName)")
        announce(URLHandled(url: plan.url.string, scheme: plan.url.scheme.name, handler: plan.entry.id, details: details), to: caller.busName)
        return results
    }

    /// Puts the admitted launch image up (splash or notification) for a handler being started;
    /// returns the splash's pid when there is one, and whether the image is shown.
    private func present(_ admission: Admission, handlerPID: Int32?) async -> (splash: Int32?, shown: Bool) {
        guard let image = admission.image else { return (nil, false) }
        if case .splash(let helper) = presenter.mode, let startupID = admission.context.startupID {
            let pid = presenter.showSplash(helper: helper, image: image, pid: handlerPID, startupID: startupID,
                                           activationToken: admission.context.activationToken, entry: admission.plan.entry, config: admission.config)
            return (pid, pid != nil)
        }
        return (nil, await presenter.notify(image: image, entry: admission.plan.entry))
    }

    private func activate(_ plan: LaunchPlan, busName: String, objectPath: String, context: LaunchContext, annotation: DBusValue?) async throws(DBusError) {
        guard let name = try? BusName(busName), let path = try? ObjectPath(objectPath) else {
            throw ContractError.launchFailed("\(plan.entry.id) is DBusActivatable but its id does not make a valid bus name")
        }
        var platform = context.platformData.mapValues { DBusValue.string($0) }
        if let annotation { platform["annotation"] = annotation }
        do {
            _ = try await connection.call(destination: name, path: path, interface: "org.freedesktop.Application", member: "Open",
                                          [.strings([plan.url.string]), .vardict(platform)], timeout: .seconds(25))
        } catch {
            throw ContractError.launchFailed("\(plan.entry.name ?? plan.entry.id) (\(plan.entry.id)) did not open the URL over D-Bus: \(error.name.rawValue): \(error.message)")
        }
    }

    /// Starts `busName` by activation (if it is not running) and grants its owner's connection
    /// read access to `pasteboard`. A failure to start is reported by the `Open` call after it.
    private func grantActivated(_ busName: String, pasteboard: String) async {
        _ = try? await BusDriver(connection).startService(busName)
        if let owner = await replies.ownerOf(busName) { pasteboards.store.addLaunchGrant(pasteboard, .connection(owner)) }
    }

    /// The pid of `busName`'s owner (nil: not on the bus, or the bus would not say).
    func pidOf(_ busName: String) async -> UInt32? {
        try? await BusDriver(connection).processID(of: busName)
    }
}
