import DBus
import LinuxSystem
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// `org.freedesktop.impl.portal.AppChooser` at `/org/freedesktop/portal/desktop` on the service's
/// connection (issue 40): xdg-desktop-portal asks it which application opens a sandboxed app's
/// URL or file, and launches the answer's `choice`. Only the real frontend is answered
/// (``PortalFrontends``); the decision is the core's. A call the core decides at once
/// (``Broker/answerAtOnce(_:caller:)``: remembered, `[Routes]` by app id, the default) is answered
/// on the loop thread; one that asks the user (``Broker/answer(_:caller:chooser:warn:)``) runs in
/// a task with the `org.freedesktop.impl.portal.Request` object at its `handle`, whose `Close`
/// answers it 1 at once and takes the chooser down (``PortalCalls``). The chosen app's launch
/// image goes up beside the answer (``PortalLaunchImage``), as for `OpenURL`.
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
    let frontends = PortalFrontends()
    private let calls = PortalCalls<AppChooserAnswer?>()
    private let threads = BlockingThreadPool(name: "sb-portal", timeout: .seconds(3), maximumThreads: 2, maximumWaiting: 16)

    init(broker: Broker, connection: Connection, chooser: ChooserService, launcher: Launcher, scale: SessionScale, logger: Logger) {
        (self.broker, self.connection, self.chooser, self.logger) = (broker, connection, chooser, logger)
        (self.launcher, self.scale) = (launcher, scale)
    }

    func declaration() -> Interface {
        Interface(Self.interface, methods: [
            Method(PortalSignature.chooseApplication, handler: .inlineOrAsync(inline: { [self] call in try chooseAtOnce(call) },
                                                                              async: { [self] call in try await choose(call) })),
            Method(PortalSignature.updateChoices, handler: .async { [self] call in
                _ = try await requireFrontend(call.sender)
                return []  // the chooser shows the candidates SchemeBridge decided; nothing to update
            }),
        ], properties: [Property("version", type: .uint32, emitsChanged: .const, get: { .uint32(1) })])
    }

    private func decode(_ call: MethodCall) throws -> AppChooserRequest {
        var options: [String: String] = [:]
        for (k, v) in call.arguments[4].stringDictionary ?? [:] { if let s = v.unwrapped.string { options[k] = s } }
        let request: AppChooserRequest
        do {
            request = try AppChooserRequest(appID: PortalAppName(call.string(1)), choices: call.arguments[3].arrayElements?.compactMap(\.string) ?? [],
                                            options: options, parentWindow: call.string(2))
        } catch {
            logger.warning("the portal's ChooseApplication was refused: \(error.message)")
            throw DBusError(.invalidArgs, error.message)
        }
        if let warning = request.parentWindowWarning { logger.notice("\(warning)") }
        return request
    }

    /// The answer on the loop thread when the frontend is known and nobody is to be asked; nil otherwise.
    private func chooseAtOnce(_ call: MethodCall) throws -> [DBusValue]? {
        guard let pid = frontends.pid(of: call.sender) else { return nil }
        let request = try decode(call)
        let caller = request.caller(frontend: call.sender, pid: pid)
        return broker.answerAtOnce(request, caller: caller).map { reply($0, request, caller) }
    }

    private func choose(_ call: MethodCall) async throws -> [DBusValue] {
        let pid = try await requireFrontend(call.sender)
        let request = try decode(call)
        let caller = request.caller(frontend: call.sender, pid: pid)
        if let answer = broker.answerAtOnce(request, caller: caller) { return reply(answer, request, caller) }
        let handle = call.string(0), path = try? ObjectPath(call.string(0))
        let (broker, chooser, logger) = (self.broker, self.chooser, self.logger)
        let answer = await calls.run(handle: handle, closed: nil, registered: {
            if let path { try? connection.export([requestDeclaration(frontend: call.sender)], at: path) }
        }) { _ in
            await broker.answer(request, caller: caller, chooser: chooser, warn: { logger.notice("\($0)") })
        }
        if let path { connection.unexport(path) }
        guard let answer else {
            logger.info("the portal closed its AppChooser request for \(caller.displayName): the chooser was taken down")
            return [.uint32(PortalResponse.cancelled.rawValue), .vardict([:])]
        }
        return reply(answer, request, caller)
    }

    /// The reply (the launch image put up beside it, off the answer's way).
    private func reply(_ answer: AppChooserAnswer, _ request: AppChooserRequest, _ caller: Caller) -> [DBusValue] {
        var results: [String: DBusValue] = [:]
        if let choice = answer.choice {
            results["choice"] = .string(choice)
            logger.info("portal: \(request.subject.choiceKey) for \(caller.displayName) opens with \(choice) (\(answer.reason))")
            if broker.policy.current.launchImages {
                Task { [self] in if let shown = broker.portalLaunchImage(request, answer: answer, scale: scale.current) { await present(shown) } }
            }
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

    private func requestDeclaration(frontend: String) -> Interface {
        Interface(Self.requestInterface, methods: [
            Method(PortalSignature.close, handler: .inline { [weak self] call in
                guard call.sender == frontend, let self else { throw DBusError(.accessDenied, "only the portal may close its request") }
                _ = calls.close(call.path.rawValue)
                return []
            }),
        ])
    }

    /// `sender`'s pid, once it is found to be the real xdg-desktop-portal (``PortalFrontends``);
    /// `AccessDenied` otherwise. The FileChooser backend (``PortalFileChooser``) asks it too.
    func requireFrontend(_ sender: String) async throws -> UInt32 {
        if let pid = frontends.pid(of: sender) { return pid }
        let pid = try? await BusDriver(connection).processID(of: sender)
        var process: EngineProcess?
        if let pid, pid > 0, pid <= UInt32(Int32.max) { process = await threads.run({ EngineProcess.gather(pid: Int32(pid)) }) ?? nil }
        if let reason = frontends.judge(sender, pid: pid, process: process) {
            logger.warning("\(sender) called the portal backend but is not xdg-desktop-portal: \(reason)")
            throw DBusError(.accessDenied, "only xdg-desktop-portal may ask SchemeBridge's portal backend: \(reason)")
        }
        return pid ?? 0
    }
}
