import DBus
import Glibc
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// The `ask` option: shows a chooser and returns the handler the user picked. Which chooser
/// (the core's rules, ``ChooserSettings/chooser(busChooserAvailable:)``, ``ShippedChooser``):
/// `[Chooser] Command=`, a client of `io.github.schemebridge.Chooser1` when `Bus=true`, else the
/// shipped `schemebridge-dialog` (the sheet, the chooser, the picker) when there is a display.
/// A program is told the question as one ``DialogRequest`` on its stdin and answers one
/// ``DialogAnswer`` (`DialogExchange`); never the URL.
/// A chooser program runs through ``ChooserProcess`` (its own thread waits; the calling task is
/// suspended), a `Chooser1` call is an ordinary asynchronous call: nothing here holds the D-Bus
/// loop thread or a shared task thread while a person decides.
final class ChooserService: ChooserPort {
    let broker: Broker
    let connection: Connection
    let registry: Registry
    /// The environment chooser programs run with (the handlers' base environment).
    let environment: [String: String]
    let logger: Logger
    /// Choosers open now (the core's rule: one per app, two for path-only callers, four in all).
    private let slots = ChooserSlots()
    /// The shipped dialog started ahead of the next question (`SheetSpare.swift`).
    let spareSheet: SheetSpare
    init(broker: Broker, connection: Connection, environment: [String: String], logger: Logger) {
        self.broker = broker
        self.connection = connection
        self.registry = broker.registry
        self.environment = environment
        self.logger = logger
        self.spareSheet = SheetSpare(environment: environment, log: { notice, message in notice ? logger.warning("\(message)") : logger.info("\(message)") }) { [broker] in
            let c = broker.policy.current.chooser
            return c.spareSheet && c.command == nil && !c.bus
        }
    }

    /// Starts the shipped dialog ahead of the first question, when it is what would be shown.
    func prepareSpareSheet() {
        if let shipped = try? shippedChooser() { spareSheet.prepare(program: shipped.path) }
    }

    /// The shipped dialog in libexec beside `schemebridged`, beside it, or on `PATH`.
    private func shippedChooser() throws(ServiceFailure) -> ShippedChooser {
        let own = CallerIdentity.executablePath(pid: getpid()).map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) }
        return try ShippedChooser.find(environment: environment, ownDirectory: own, busName: ChooserContract.busName.rawValue)
    }

    /// Shows the first chooser available and returns its answer. `subject` is a scheme or a
    /// content type (`kind` follows from it), asked about by the core's decision
    /// (`Broker.decide`); the answer goes back to `Broker.settle`, which checks and remembers it.
    /// Candidates that are not ``ChooserCandidate/isOfferable`` are not shown. `activationToken`:
    /// the caller's, handed to the chooser so its window may take focus (``ActivationToken``).
    /// A pick's sheet (`pick:TYPE`) is kind `pick`, with the caller's `title`; a share's is kind
    /// `share`, with its items described.
    func choose(_ question: HandlerQuestion, caller: Caller, context: ChooserContext) async throws(OpenFailure) -> ChooserAnswer {
        let (subject, title, share) = (question.subject, context.title, context.share)
        let prompt = ChooserPrompt(subject: subject, share: share)
        let (kind, activationToken) = (prompt.kind, prompt.activationToken(caller: context.activationToken))
        let candidates = ChooserCandidate.offerable(question.candidates)
        guard !candidates.isEmpty else { return .cancelled(reason: "no application could be offered") }
        let key = ChooserSlots.key(for: caller)
        guard slots.take(key) else {
            throw OpenFailure(.rateLimited, "a chooser is already open for \(caller.displayName) (or \(ChooserSlots.perPathGroup) for programs known only "
                + "by their path, or \(ChooserSlots.total) in all); answer it first")
        }
        defer { slots.give(key) }
        let settings = broker.policy.current.chooser
        let timeout = Duration.seconds(settings.timeout)
        let request = DialogExchange.request(kind: kind, subject: subject, candidates: candidates, asker: asker(caller),
                                             canRemember: ChoiceStore.canRemember(caller: caller.rememberingID), title: title,
                                             activationToken: activationToken, parentWindow: context.parentWindow,
                                             receivedFrom: context.receivedFrom, share: share)
        switch await settings.chooser(busChooserAvailable: { await self.busChooserAvailable() }) {
        case .configured(let command):
            return try await runProgram(command, what: "the configured chooser ([Chooser] Command=)", request: request, caller: caller, timeout: timeout)
        case .bus:
            return await askBusChooser(subject: subject, kind: kind, candidates: candidates, caller: caller,
                                       activationToken: activationToken, parentWindow: context.parentWindow, timeout: timeout, title: title, share: share)
        case .shipped:
            let shipped = try shippedChooser()
            return try await runProgram([shipped.path], what: ShippedChooser.name, request: request, caller: caller, timeout: timeout, spare: true)
        }
    }

    // MARK: a dialog program

    /// Runs `argv` (the spare when `spare` and one is ready) with `request` on its stdin and reads its answer.
    private func runProgram(_ argv: [String], what: String, request: DialogRequest, caller: Caller, timeout: Duration,
                            spare: Bool = false) async throws(OpenFailure) -> ChooserAnswer {
        let input = request.line
        logger.info("asking \(caller.displayName)'s user to choose for \(request.subject) with \(argv[0])")
        let run = { [environment] in await ChooserProcess.run(argv: argv, environment: environment, input: input, timeout: timeout) }
        switch spare ? await spareSheet.run(program: argv[0], input: input, timeout: timeout, cold: run) : await run() {
        case .failedToStart(let error):
            throw OpenFailure(.noChooser, "\(what) cannot be started: \(error.reason)")
        case .timedOut:
            return .cancelled(reason: "the chooser gave no answer in \(timeout.components.seconds) s ([Chooser] Timeout=) and was closed")
        case .finished(let status, let output):
            let answer = DialogExchange.answer(status: status, output: output)
            if case .failed(let reason) = answer { logger.warning("\(what) failed: \(reason)") }
            return answer
        }
    }

    /// Who asks, as the dialog names it.
    private func asker(_ caller: Caller) -> DialogExchange.Asker {
        let name = callerName(caller)
        return DialogExchange.Asker(id: caller.appID ?? "", name: name, commandLine: caller.throughCLI && (caller.appID ?? "").isEmpty)
    }

    // MARK: a Chooser1 client on the bus

    /// Whether a client owns (or the bus can start) `io.github.schemebridge.Chooser1`.
    private func busChooserAvailable() async -> Bool {
        let name = ChooserContract.busName.rawValue
        let driver = BusDriver(connection)
        if (try? await driver.nameHasOwner(name, timeout: .seconds(5))) == true { return true }
        return (try? await driver.activatableNames(timeout: .seconds(5)))?.contains(name) ?? false
    }

    private func askBusChooser(subject: String, kind: String, candidates: [ChooserCandidate], caller: Caller,
                               activationToken: String?, parentWindow: String?, timeout: Duration, title: String?,
                               share: ShareQuestion?) async -> ChooserAnswer {
        var context: [String: DBusValue] = [
            ChooserContract.ContextKey.caller: .string(caller.appID ?? ""), ChooserContract.ContextKey.callerName: .string(callerName(caller)),
            ChooserContract.ContextKey.kind: .string(kind),
            ChooserContract.ContextKey.canRemember: .boolean(ChoiceStore.canRemember(caller: caller.rememberingID)),
        ]
        if let activationToken, ActivationToken.isValid(activationToken) {
            context[ChooserContract.ContextKey.activationToken] = .string(activationToken)
        }
        if let parentWindow { context[ChooserContract.ContextKey.parentWindow] = .string(parentWindow) }
        if let title { context[ChooserContract.ContextKey.title] = .string(title) }
        if let share {
            context[ChooserContract.ContextKey.shareTypes] = .strings(share.types)
            context[ChooserContract.ContextKey.shareCount] = .uint32(UInt32(clamping: share.count))
            context[ChooserContract.ContextKey.targetKinds] = .strings(candidates.map { ShareQuestion.kind($0.desktopID) })
        }
        let list = DBusValue.array(element: .structure([.string, .string, .string]),
                                   candidates.map { .structure([.string($0.desktopID), .string($0.name), .string($0.icon)]) })
        logger.info("asking \(caller.displayName)'s user to choose for \(subject) through \(ChooserContract.busName)")
        do {
            let reply = try await connection.call(destination: ChooserContract.busName, path: ChooserContract.objectPath,
                                                  interface: ChooserContract.interface, member: ChooserContract.choose,
                                                  [.string(subject), list, .vardict(context)], timeout: timeout)
            guard reply.count == 2, case .string(let id) = reply[0], case .boolean(let always) = reply[1] else {
                return .failed(reason: "the chooser on the bus answered with the wrong signature (expected (sb))")
            }
            return id.isEmpty ? .cancelled(reason: "the user cancelled the chooser") : .picked(id, always: always)
        } catch {
            if error.name == .noReply {
                return .cancelled(reason: "the chooser on the bus gave no answer in \(timeout.components.seconds) s ([Chooser] Timeout=)")
            }
            return .failed(reason: "the chooser on the bus failed: \(error.name.rawValue): \(error.message)")
        }
    }

    /// How the caller is named to the user (``CallerLabel``: its entry's `Name`, else its id or
    /// the program or script it runs; "" unidentified). A label only.
    private func callerName(_ caller: Caller) -> String {
        CallerLabel.label(appID: caller.appID, pid: caller.throughCLI ? nil : caller.pid.map { Int32(bitPattern: $0) }) { [registry] id in
            registry.entry(id: DesktopID(id))?.name
        }
    }
}
