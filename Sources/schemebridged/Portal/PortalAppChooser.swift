import DBus
import LinuxSystem
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import Synchronization

/// `org.freedesktop.impl.portal.AppChooser` at `/org/freedesktop/portal/desktop` on the service's
/// connection (issue 40): xdg-desktop-portal asks it which application opens a sandboxed app's
/// URL or file, and launches the answer's `choice`. Only the real frontend is answered (the
/// core's ``PortalFrontendRule`` on the caller's process); the decision is the core's
/// (``Broker/answer(_:caller:chooser:warn:)``: remembered, `[Routes]` by app id, else our chooser).
/// Each call exports the `org.freedesktop.impl.portal.Request` object at its `handle` while it
/// runs; `Close` there answers the call with response 1 (the chooser, if shown, stays until
/// the user answers it; its answer is then dropped). The chosen app's launch image goes up as the
/// answer goes back (``PortalLaunchImage``), as for `OpenURL`.
final class PortalAppChooser: Sendable {
    static let path = PortalBackend.objectPath
    static let interface = PortalBackend.appChooserInterface
    static let requestInterface = PortalBackend.requestInterface

    let broker: Broker
    let connection: Connection
    let chooser: ChooserService
    /// The launch image while the chosen app starts (``PortalLaunchImage``).
    let launcher: Launcher
    let scale: SessionScale
    let logger: Logger
    /// Unique names judged to be the frontend (unique names are never reused on a bus). Refusals
    /// are not kept: any program could call once from each of many connections and grow the set.
    private let judged = Mutex<Set<String>>([])
    /// Calls in progress by handle: closed ones are answered at once.
    private let running = Mutex<[String: OneAnswer]>([:])
    private let threads = BlockingThreadPool(name: "sb-portal", timeout: .seconds(3), maximumThreads: 2, maximumWaiting: 16)

    init(broker: Broker, connection: Connection, chooser: ChooserService, launcher: Launcher, scale: SessionScale, logger: Logger) {
        (self.broker, self.connection, self.chooser, self.logger) = (broker, connection, chooser, logger)
        (self.launcher, self.scale) = (launcher, scale)
    }

    func declaration() -> Interface {
        Interface(Self.interface, methods: [
            Method(PortalSignature.chooseApplication, handler: .async { [self] call in try await self.choose(call) }),
            Method(PortalSignature.updateChoices, handler: .async { [self] call in
                try await self.requireFrontend(call.sender)
                return []  // the chooser shows the candidates SchemeBridge decided; nothing to update
            }),
        ], properties: [Property("version", type: .uint32, emitsChanged: .const, get: { .uint32(1) })])
    }

    private func choose(_ call: MethodCall) async throws -> [DBusValue] {
        try await requireFrontend(call.sender)
        let handle = call.string(0)
        var options: [String: String] = [:]
        for (k, v) in call.arguments[4].stringDictionary ?? [:] { if let s = v.unwrapped.string { options[k] = s } }
        let choices = call.arguments[3].arrayElements?.compactMap(\.string) ?? []
        let request: AppChooserRequest
        do { request = try AppChooserRequest(appID: call.string(1), choices: choices, options: options, parentWindow: call.string(2)) } catch {
            logger.warning("the portal's ChooseApplication was refused: \(error.message)")
            throw DBusError(.invalidArgs, error.message)
        }
        if let warning = request.parentWindowWarning { logger.notice("\(warning)") }
        let pid = try? await BusDriver(connection).processID(of: call.sender)
        let caller = request.caller(frontend: call.sender, pid: pid)
        let (broker, chooser, logger) = (self.broker, self.chooser, self.logger)
        let answer: AppChooserAnswer? = await withCheckedContinuation { c in
            let once = OneAnswer(c)
            let path = try? ObjectPath(handle)
            if let path {
                running.withLock { $0[handle] = once }
                try? connection.export([requestDeclaration(handle: handle, frontend: call.sender)], at: path)
            }
            // Not a child task: a Close answers at once while the chooser is still up.
            Task {
                let a = await broker.answer(request, caller: caller, chooser: chooser, warn: { logger.notice("\($0)") })
                once.resume(a)
            }
        }
        if running.withLock({ $0.removeValue(forKey: handle) }) != nil, let path = try? ObjectPath(handle) { connection.unexport(path) }
        guard let answer else {
            logger.info("the portal closed its AppChooser request for \(caller.displayName)")
            return [.uint32(PortalResponse.cancelled.rawValue), .vardict([:])]
        }
        if let shown = broker.portalLaunchImage(request, answer: answer, scale: scale.current) { await present(shown) }
        var results: [String: DBusValue] = [:]
        if let choice = answer.choice {
            results["choice"] = .string(choice)
            logger.info("portal: \(request.subject.choiceKey) for \(caller.displayName) opens with \(choice) (\(answer.reason))")
        } else {
            logger.info("portal: nothing opens \(request.subject.choiceKey) for \(caller.displayName): \(answer.reason)")
        }
        return [.uint32(answer.response.rawValue), .vardict(results)]
    }

    /// Puts the launch image up (the splash helper, else a notification) as the frontend is
    /// about to launch the chosen app; the launch itself is the frontend's.
    private func present(_ shown: PortalLaunchImage) async {
        if case .splash(let helper) = launcher.splash.mode {
            _ = launcher.splash.showSplash(helper: helper, image: shown.image, pid: nil, startupID: shown.startupID, activationToken: nil,
                                            entry: shown.entry, config: shown.config)
        } else {
            _ = await launcher.port.notify(image: shown.image, entry: shown.entry)
        }
    }

    private func requestDeclaration(handle: String, frontend: String) -> Interface {
        Interface(Self.requestInterface, methods: [
            Method(PortalSignature.close, handler: .inline { [weak self] call in
                guard call.sender == frontend, let self else { throw DBusError(.accessDenied, "only the portal may close its request") }
                if let once = self.running.withLock({ $0.removeValue(forKey: handle) }) {
                    self.connection.unexport(call.path)
                    once.resume(nil)
                }
                return []
            }),
        ])
    }

    /// Throws `AccessDenied` unless `sender` is the real xdg-desktop-portal (``PortalFrontendRule``);
    /// the FileChooser backend (``PortalFileChooser``) asks it too.
    func requireFrontend(_ sender: String) async throws {
        if judged.withLock({ $0.contains(sender) }) { return }
        var reason = "the bus does not say which process it is"
        if let pid = try? await BusDriver(connection).processID(of: sender), pid > 0, pid <= UInt32(Int32.max) {
            if let found = await threads.run({ EngineProcess.gather(pid: Int32(pid)) }), let process = found {
                reason = PortalFrontendRule.refusal(of: process) ?? ""
            } else {
                reason = "its process \(pid) could not be examined"
            }
        }
        if reason.isEmpty { judged.withLock { _ = $0.insert(sender) } }
        guard reason.isEmpty else {
            logger.warning("\(sender) called the portal backend but is not xdg-desktop-portal: \(reason)")
            throw DBusError(.accessDenied, "only xdg-desktop-portal may ask SchemeBridge's portal backend: \(reason)")
        }
    }
}

/// A continuation resumed once: by the decision, or by the portal's `Close` (nil).
private final class OneAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<AppChooserAnswer?, Never>?>
    init(_ c: CheckedContinuation<AppChooserAnswer?, Never>) { continuation = Mutex(c) }
    func resume(_ answer: AppChooserAnswer?) {
        continuation.withLock { c in
            c?.resume(returning: answer)
            c = nil
        }
    }
}
