import DBus
import Glibc
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// The `ask` option: shows a chooser and returns the handler the user picked. Which chooser
/// (the core's rule, ``ChooserSettings/chooser(busChooserAvailable:)``): `[Chooser] Command=`, a
/// client of `io.github.schemebridge.Chooser1` when `Bus=true`, else the shipped
/// `schemebridge-chooser` (zenity, else kdialog) when there is a display. No chooser is sent the
/// URL: only its scheme (or a document's type) and the caller.
/// A chooser program runs through ``ChooserProcess`` (its own thread waits; the calling task is
/// suspended), a `Chooser1` call is an ordinary asynchronous call: nothing here holds the D-Bus
/// loop thread or a shared task thread while a person decides.
final class ChooserService: Sendable {
    let broker: Broker
    let connection: Connection
    let registry: Registry
    /// The environment chooser programs run with (the handlers' base environment).
    let environment: [String: String]
    let logger: Logger
    /// Choosers open now (the core's rule: one per app, two for path-only callers, four in all).
    private let slots = ChooserSlots()
    /// The shipped chooser's name (installed beside `schemebridged` by `make install`).
    static let shippedChooser = "schemebridge-chooser"
    /// The shipped share sheet's name (beside the chooser); the chooser stands in without it.
    static let shippedSheet = "schemebridge-sheet"
    /// The shipped sheet started ahead of the next share (`SheetSpare.swift`).
    let spareSheet: SheetSpare

    /// What a share sheet is told besides the candidates: the items' types and count (never
    /// their data) and the sharing app's activation token.
    struct ShareQuestion: Sendable {
        let types: [String]
        let count: Int
        let activationToken: String?

        /// A candidate's kind column: `app` for an app's action, `device` for a nearby device,
        /// `builtin` for SchemeBridge's own activities.
        static func kind(_ id: String) -> String {
            switch ShareTargetID(id) {
            case .action?: return "app"
            case .device?: return "device"
            default: return "builtin"
            }
        }
    }

    init(broker: Broker, connection: Connection, environment: [String: String], logger: Logger) {
        self.broker = broker
        self.connection = connection
        self.registry = broker.registry
        self.environment = environment
        self.logger = logger
        self.spareSheet = SheetSpare(environment: environment, logger: logger) { [broker] in
            let c = broker.policy.current.chooser
            return c.spareSheet && c.command == nil && !c.bus
        }
    }

    /// Starts the shipped sheet ahead of the first share, when it is what a share would show.
    func prepareSpareSheet() {
        if let sheet = try? shippedChooser(named: Self.shippedSheet) { spareSheet.prepare(program: sheet) }
    }

    /// Shows the first chooser available and returns its answer. `subject` is a scheme or a
    /// content type (`kind` follows from it), asked about by the core's decision
    /// (`Broker.decide`); the answer goes back to `Broker.settle`, which checks and remembers it.
    /// Candidates that are not ``ChooserCandidate/isOfferable`` are not shown. `activationToken`:
    /// the caller's, handed to the chooser so its window may take focus (``ActivationToken``).
    /// A pick's sheet (`pick:TYPE`) is kind `pick`, with the caller's `title`; a share's is kind
    /// `share`, shown by the shipped sheet when it is installed.
    func choose(subject: String, candidates: [ChooserCandidate], caller: Caller, activationToken: String? = nil,
                title: String? = nil, share: ShareQuestion? = nil) async throws(DBusError) -> ChooserAnswer {
        let activationToken = share?.activationToken ?? activationToken
        let candidates = ChooserCandidate.offerable(candidates)
        guard !candidates.isEmpty else { return .cancelled(reason: "no application could be offered") }
        let key = ChooserSlots.key(for: caller)
        guard slots.take(key) else {
            throw ContractError.rateLimited("a chooser is already open for \(caller.displayName) (or \(ChooserSlots.perPathGroup) for programs known only "
                + "by their path, or \(ChooserSlots.total) in all); answer it first")
        }
        defer { slots.give(key) }
        let settings = broker.policy.current.chooser
        let timeout = Duration.seconds(settings.timeout)
        let kind = share != nil ? "share" : ChoiceSubject.isPick(subject) ? "pick" : ChoiceSubject.isContentType(subject) ? "type" : "scheme"
        switch await settings.chooser(busChooserAvailable: { await self.busChooserAvailable() }) {
        case .configured(let command):
            return try await runProgram(command, what: "the configured chooser ([Chooser] Command=)", subject: subject, kind: kind,
                                        candidates: candidates, caller: caller, activationToken: activationToken, timeout: timeout, title: title,
                                        share: share, kindColumn: true)
        case .bus:
            return await askBusChooser(subject: subject, kind: kind, candidates: candidates, caller: caller,
                                       activationToken: activationToken, timeout: timeout, title: title, share: share)
        case .shipped:
            let program = share != nil ? (try? shippedChooser(named: Self.shippedSheet)) : nil
            let chosen: String
            if let program { chosen = program } else { chosen = try shippedChooser() }
            return try await runProgram([chosen], what: program == nil ? "schemebridge-chooser" : "schemebridge-sheet", subject: subject,
                                        kind: kind, candidates: candidates, caller: caller, activationToken: activationToken, timeout: timeout,
                                        title: title, share: share, kindColumn: program != nil, spare: program != nil)
        }
    }

    // MARK: a chooser program

    private func runProgram(_ argv: [String], what: String, subject: String, kind: String, candidates: [ChooserCandidate],
                            caller: Caller, activationToken: String?, timeout: Duration, title: String?,
                            share: ShareQuestion?, kindColumn: Bool, spare: Bool = false) async throws(DBusError) -> ChooserAnswer {
        var env = ActivationToken.helperEnvironment(activationToken, base: environment)
        if let title { env["SCHEMEBRIDGE_CHOOSER_TITLE"] = title }
        env["SCHEMEBRIDGE_CHOOSER_SUBJECT"] = subject
        env["SCHEMEBRIDGE_CHOOSER_KIND"] = kind
        env["SCHEMEBRIDGE_CHOOSER_CALLER"] = caller.appID ?? ""
        env["SCHEMEBRIDGE_CHOOSER_CALLER_NAME"] = callerName(caller)
        env["SCHEMEBRIDGE_CHOOSER_CAN_REMEMBER"] = ChoiceStore.canRemember(caller: caller.appID) ? "1" : "0"
        var input = ChooserLines.input(candidates)
        if let share {
            env["SCHEMEBRIDGE_SHARE_TYPES"] = share.types.joined(separator: ",")
            env["SCHEMEBRIDGE_SHARE_COUNT"] = String(share.count)
            // The kind column for a sheet (the shipped chooser standing in reads three).
            if kindColumn { input = ChooserLines.input(candidates, kinds: candidates.map { ShareQuestion.kind($0.desktopID) }) }
        }
        logger.info("asking \(caller.displayName)'s user to choose for \(subject) with \(argv[0])")
        let run = { await ChooserProcess.run(argv: argv, environment: env, input: input, timeout: timeout) }
        switch spare ? await spareSheet.run(program: argv[0], environment: env, input: input, timeout: timeout, cold: run) : await run() {
        case .failedToStart(let error):
            throw ContractError.noChooser("\(what) cannot be started: \(error.reason)")
        case .timedOut:
            return .cancelled(reason: "the chooser gave no answer in \(timeout.components.seconds) s ([Chooser] Timeout=) and was closed")
        case .finished(let status, let output):
            return ChooserLines.answer(status: status, output: output)
        }
    }

    /// The shipped chooser: beside this executable (as `make install` puts it), else on `PATH`;
    /// it needs a display and zenity or kdialog.
    private func shippedChooser(named program: String = ChooserService.shippedChooser) throws(DBusError) -> String {
        let path = ProgramLookup.searchPath(environment: environment)
        let beside = CallerIdentity.executablePath(pid: getpid()).map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) + "/" + program }
        let display = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let dialog = ProgramLookup.find("zenity", searchPath: path) ?? ProgramLookup.find("kdialog", searchPath: path)
        guard let chooser = beside.flatMap({ ProgramLookup.find($0, searchPath: path) }) ?? ProgramLookup.find(program, searchPath: path),
              display, dialog != nil else {
            throw ContractError.noChooser("no chooser to ask with: configure one ([Chooser] Command= in ~/.config/schemebridge/config), "
                + "run a client of \(ChooserContract.busName), or "
                + (display ? "" : "give the session a display (DISPLAY) and ") + "install zenity (or kdialog) for the shipped schemebridge-chooser")
        }
        return chooser
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
                               activationToken: String?, timeout: Duration, title: String?, share: ShareQuestion?) async -> ChooserAnswer {
        var context: [String: DBusValue] = [
            ChooserContract.ContextKey.caller: .string(caller.appID ?? ""), ChooserContract.ContextKey.callerName: .string(callerName(caller)),
            ChooserContract.ContextKey.kind: .string(kind),
            ChooserContract.ContextKey.canRemember: .boolean(ChoiceStore.canRemember(caller: caller.appID)),
        ]
        if let activationToken, ActivationToken.isValid(activationToken) {
            context[ChooserContract.ContextKey.activationToken] = .string(activationToken)
        }
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
                return .cancelled(reason: "the chooser on the bus answered with the wrong signature (expected (sb))")
            }
            return id.isEmpty ? .cancelled(reason: "the user cancelled the chooser") : .picked(id, always: always)
        } catch {
            if error.name == .noReply {
                return .cancelled(reason: "the chooser on the bus gave no answer in \(timeout.components.seconds) s ([Chooser] Timeout=)")
            }
            return .cancelled(reason: "the chooser on the bus failed: \(error.name.rawValue): \(error.message)")
        }
    }

    /// How the caller is named to the user (``CallerLabel``: its entry's `Name`, else its id or
    /// the program or script it runs; "" unidentified). A label only.
    private func callerName(_ caller: Caller) -> String {
        CallerLabel.label(appID: caller.appID, pid: caller.throughCLI ? nil : caller.pid.map { Int32(bitPattern: $0) }) { [registry] id in
            registry.entry(id: DesktopID(id).fileName)?.name
        }
    }
}
