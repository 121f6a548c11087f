/// A D-Bus call that failed: its error's name and message (the port's, for the core to word).
public struct BusCallFailure: Error, Sendable, Equatable {
    public let name: String
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

/// What the one launcher needs outside the core: the bus (activation, the entry's
/// `org.freedesktop.Application`) and a notification for a launch image. The daemon implements it.
public protocol LaunchPort: ActivationBus {
    /// What a caller hands an activated handler in `platform_data`'s `annotation` (the daemon's D-Bus value).
    associatedtype Annotation: Sendable
    /// Calls `call` (`Open` with `uris`, `ActivateAction`, `Activate`) on the `org.freedesktop.Application`
    /// at `objectPath` of `busName` (both valid: checked by the core), with `platformData`, `annotation`
    /// and, when `urisInPlatformData`, the `uris` there too. Returns the unique name of the
    /// connection that answered (the name's owner; nil when the bus does not say).
    func callApplication(_ call: ApplicationCall, busName: String, objectPath: String, uris: [String], platformData: [String: String],
                         urisInPlatformData: Bool, annotation: Annotation?) async throws(BusCallFailure) -> String?
    /// Shows `image` for `entry` in a notification when a notification server is on the bus;
    /// returns whether one is (without waiting for the notification's reply).
    func notify(image: String, entry: DesktopEntry) async -> Bool
    /// Runs `work` once the reply to the method call that launches has gone (what the caller need
    /// not wait for: the reaper's watch of a spawned handler); where there is none, now.
    func afterReply(_ work: @escaping @Sendable () -> Void)
}

extension LaunchPort {
    /// Runs `work` now.
    public func afterReply(_ work: @escaping @Sendable () -> Void) { work() }
}

/// The one launcher: starts any ``LaunchPlan`` the core made — a URL's or a document's handler,
/// a share's target, a pick's provider — through ``HandlerStarter`` (which process is watched,
/// grants, recent launches): the spawn, or the plan's `org.freedesktop.Application` call
/// (`Open`, `ActivateAction`, `Activate`), with the admitted launch image around it (the splash
/// helper, else a notification). What the start means to the caller (`URLHandled`, a share's
/// `Response`) is its flow's.
public struct PlanLauncher<Port: LaunchPort>: Sendable {
    public let starter: HandlerStarter
    /// The bus and the notifications.
    public let port: Port
    /// The launch image's splash helper (``LaunchImageMode``).
    public let splash: SplashHelper
    /// Who waits for a request's handler.
    public let watcher: any HandlerWatcher
    public let usedActivationTokens: UsedActivationTokens

    public init(starter: HandlerStarter, port: Port, splash: SplashHelper, watcher: any HandlerWatcher, usedActivationTokens: UsedActivationTokens) {
        (self.starter, self.port, self.splash, self.watcher, self.usedActivationTokens) = (starter, port, splash, watcher, usedActivationTokens)
    }

    /// What was started.
    public struct Started: Sendable {
        /// The handler's pid (the first spawned, or the activated name's owner), when known.
        public var pid: UInt32?
        /// Whether it was D-Bus-activated (else spawned).
        public var activated: Bool
        /// The launch image shown, if any.
        public var launchImage: String?
    }

    /// Whether a launch image would be shown as a splash (which needs a startup id).
    public var splashAvailable: Bool {
        if case .splash = splash.mode { return true }
        return false
    }

    /// Starts `plan` with `context` (`admission`: its launch image and x-callback routes, nil for
    /// a pick's provider); `request` watches the handler, which may read `pasteboard` while it
    /// runs; `annotation` goes into an activated handler's `platform_data`.
    public func start(_ plan: LaunchPlan, context: LaunchContext, admission: Admission? = nil, request: UInt64?, pasteboard: String? = nil,
                      annotation: Port.Annotation? = nil) async throws(OpenFailure) -> Started {
        var started: Started
        switch plan.action {
        case .spawn(let commands):
            let pids = try starter.spawn(commands, of: plan.entry, url: plan.url?.string ?? "", context: context, callbackGroup: admission?.callbackGroup,
                                         purpose: plan.purpose, request: request, pasteboard: pasteboard, watcher: watcher, arming: port.afterReply)
            started = Started(pid: pids.first.map { UInt32(bitPattern: $0) }, activated: false)
            if let admission, await present(admission, handlerPID: pids.first).shown { started.launchImage = admission.image }
        case .activate(let busName, let objectPath):
            guard AppID.isValid(busName) else {
                // An on-disk index older than the check at reading.
                throw OpenFailure(.launchFailed, "\(plan.entry.id) is DBusActivatable but its id does not make a valid bus name")
            }
            // The app may take a while to start on activation: the image goes up first, and
            // comes down at once when the activation fails.
            let presented = admission == nil ? (splash: nil, shown: false) : await present(admission!, handlerPID: nil)
            await starter.activating(admission, purpose: plan.purpose, busName: busName, request: request, pasteboard: pasteboard, watcher: watcher, bus: port)
            let answeredBy: String?
            do {
                answeredBy = try await port.callApplication(plan.call, busName: busName, objectPath: objectPath, uris: plan.targets.urls.map(\.string),
                                               platformData: context.platformData, urisInPlatformData: plan.purpose.passesURIsInPlatformData,
                                               annotation: annotation)
            } catch {
                if let pid = presented.splash { splash.takeDown(splash: pid) }
                throw plan.activationFailure(error.name, error.message)
            }
            started = Started(activated: true)
            if plan.purpose.watchesActivatedOwner {
                started.pid = await starter.activated(admission, purpose: plan.purpose, busName: busName, answeredBy: answeredBy, request: request,
                                                      watcher: watcher, bus: port)
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
        if case .splash(let helper) = splash.mode, let startupID = admission.context.startupID {
            let pid = splash.showSplash(helper: helper, image: image, pid: handlerPID, startupID: startupID,
                                        activationToken: admission.context.activationToken, entry: admission.plan.entry, config: admission.config)
            return (pid, pid != nil)
        }
        return (nil, await port.notify(image: image, entry: admission.plan.entry))
    }
}
