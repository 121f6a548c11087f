import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// The one launcher: starts any ``LaunchPlan`` the core made — a URL's or a document's handler,
/// a share's target, a pick's provider — through the core's ``HandlerStarter`` (which process is
/// watched, grants, recent launches): the spawn, or the plan's `org.freedesktop.Application`
/// call (`Open`, `ActivateAction`, `Activate`), with the admitted launch image around it.
/// What the start means to the caller (`URLHandled`, a share's `Response`) is its flow's.
struct Launcher: Sendable {
    let starter: HandlerStarter
    let connection: Connection
    let presenter: LaunchImagePresenter
    /// Who waits for a request's handler.
    let replies: ReplyService
    let usedActivationTokens: UsedActivationTokens

    /// What was started.
    struct Started: Sendable {
        /// The handler's pid (the first spawned, or the activated name's owner), when known.
        var pid: UInt32?
        var kind: URLHandled.Launch
        /// The launch image shown, if any.
        var launchImage: String?
    }

    /// Starts `plan` with `context` (`admission`: its launch image and x-callback routes, nil for
    /// a pick's provider); `request` watches the handler, which may read `pasteboard` while it
    /// runs; `annotation` goes into an activated handler's `platform_data`.
    func start(_ plan: LaunchPlan, context: LaunchContext, admission: Admission? = nil, request: UInt64?, pasteboard: String? = nil,
               annotation: DBusValue? = nil) async throws -> Started {
        var started: Started
        switch plan.action {
        case .spawn(let commands):
            let pids = try starter.spawn(commands, of: plan.entry, url: plan.url?.string ?? "", context: context, callbackGroup: admission?.callbackGroup,
                                         purpose: plan.purpose, request: request, pasteboard: pasteboard, watcher: replies)
            started = Started(pid: pids.first.map { UInt32(bitPattern: $0) }, kind: .spawn)
            if let admission, await present(admission, handlerPID: pids.first).shown { started.launchImage = admission.image }
        case .activate(let busName, let objectPath):
            // The app may take a while to start on activation: the image goes up first, and
            // comes down at once when the activation fails.
            let presented = admission == nil ? (splash: nil, shown: false) : await present(admission!, handlerPID: nil)
            let bus = BusActivation(connection: connection)
            await starter.activating(admission, purpose: plan.purpose, busName: busName, request: request, pasteboard: pasteboard, watcher: replies, bus: bus)
            do {
                try await call(plan, busName: busName, objectPath: objectPath, context: context, annotation: annotation)
            } catch {
                if let splash = presented.splash { presenter.splash.takeDown(splash: splash) }
                throw error
            }
            started = Started(kind: .dbusActivation)
            if plan.purpose.watchesActivatedOwner {
                started.pid = await starter.activated(admission, purpose: plan.purpose, busName: busName, request: request, watcher: replies, bus: bus)
            }
            if presented.shown { started.launchImage = admission?.image }
        }
        if plan.purpose.usesActivationToken { usedActivationTokens.record(context.activationToken) }  // the handler's window takes focus with it
        return started
    }

    /// Puts the admitted launch image up (splash or notification) for a handler being started;
    /// returns the splash's pid when there is one, and whether the image is shown.
    private func present(_ admission: Admission, handlerPID: Int32?) async -> (splash: Int32?, shown: Bool) {
        guard let image = admission.image else { return (nil, false) }
        if case .splash(let helper) = presenter.mode, let startupID = admission.context.startupID {
            let pid = presenter.splash.showSplash(helper: helper, image: image, pid: handlerPID, startupID: startupID,
                                           activationToken: admission.context.activationToken, entry: admission.plan.entry, config: admission.config)
            return (pid, pid != nil)
        }
        return (nil, await presenter.notify(image: image, entry: admission.plan.entry))
    }

    /// The plan's `org.freedesktop.Application` call on `busName`'s `objectPath`.
    private func call(_ plan: LaunchPlan, busName: String, objectPath: String, context: LaunchContext, annotation: DBusValue?) async throws {
        let app: FreedesktopApplication
        do {
            app = try FreedesktopApplication(connection: connection, busName: busName, objectPath: objectPath)
        } catch {
            // An on-disk index older than the check at reading.
            throw ContractError.launchFailed("\(plan.entry.id) is DBusActivatable but its id does not make a valid bus name")
        }
        let uris = plan.targets.urls.map(\.string)
        var platform = context.platformData.mapValues { DBusValue.string($0) }
        if let annotation { platform["annotation"] = annotation }
        if plan.purpose.passesURIsInPlatformData { platform["uris"] = .strings(uris) }
        do {
            switch plan.call {
            case .open: try await app.open(uris, platformData: platform)
            case .activateAction(let action): try await app.activateAction(action, platformData: platform)
            case .activate: try await app.activate(platformData: platform)
            }
        } catch {
            throw DBusError(plan.activationFailure(error.name.rawValue, error.message))
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
