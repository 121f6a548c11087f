import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// Starting what the broker admitted, through the core's ``HandlerStarter`` (which process is
/// watched, grants, recent launches): the spawn or the `org.freedesktop.Application.Open` call,
/// the launch image, and `URLHandled`.
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
        case .spawn:
            let pids = try Self.adapt { () throws(OpenFailure) in
                try starter.spawn(admission, request: reply, pasteboard: pasteboard, watcher: replies)
            }
            results.pid = pids.first.map { UInt32(bitPattern: $0) }
            shown = await present(admission, handlerPID: pids.first).shown
            launchKind = .spawn
        case .activate(let busName, let objectPath):
            // The app may take a while to start on activation: the image goes up first, and
            // comes down at once when the activation fails.
            let presented = await present(admission, handlerPID: nil)
            shown = presented.shown
            let bus = BusActivation(connection: connection)
            await starter.activating(admission, busName: busName, request: reply, pasteboard: pasteboard, watcher: replies, bus: bus)
            do {
                try await activate(plan, busName: busName, objectPath: objectPath, context: context, annotation: annotation)
            } catch {
                if let splash = presented.splash { presenter.takeDown(splash: splash) }
                throw error
            }
            results.pid = await starter.activated(admission, busName: busName, request: reply, watcher: replies, bus: bus)
            launchKind = .dbusActivation
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
        let app = try Self.application(connection, plan.entry, busName: busName, objectPath: objectPath)
        var platform = context.platformData.mapValues { DBusValue.string($0) }
        if let annotation { platform["annotation"] = annotation }
        do {
            try await app.open([plan.url.string], platformData: platform)
        } catch {
            throw ContractError.launchFailed("\(plan.entry.name ?? plan.entry.id) (\(plan.entry.id)) did not open the URL over D-Bus: \(error.name.rawValue): \(error.message)")
        }
    }

    /// The `org.freedesktop.Application` of `entry` (an activatable launch, share or pick); an id
    /// that is no bus name (an on-disk index older than the check at reading) is `LaunchFailed`.
    static func application(_ connection: Connection, _ entry: DesktopEntry, busName: String, objectPath: String) throws(DBusError) -> FreedesktopApplication {
        do {
            return try FreedesktopApplication(connection: connection, busName: busName, objectPath: objectPath)
        } catch {
            throw ContractError.launchFailed("\(entry.id) is DBusActivatable but its id does not make a valid bus name")
        }
    }

    /// The pid of `busName`'s owner (nil: not on the bus, or the bus would not say).
    func pidOf(_ busName: String) async -> UInt32? {
        await BusActivation(connection: connection).processID(of: busName)
    }
}

/// The core's ``ActivationBus`` over the bus driver.
struct BusActivation: ActivationBus {
    let connection: Connection

    func startService(_ busName: String) async { _ = try? await BusDriver(connection).startService(busName) }
    func owner(of busName: String) async -> String? { try? await BusDriver(connection).nameOwner(busName) }
    func processID(of busName: String) async -> UInt32? { try? await BusDriver(connection).processID(of: busName) }
}

/// The reply service is who waits for a request's handler.
extension ReplyService: HandlerWatcher {}
