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

    init(broker: Broker, connection: Connection, environment: [String: String], logger: Logger) {
        self.broker = broker
        self.connection = connection
        self.registry = broker.registry
        self.environment = environment
        self.logger = logger
    }

    /// Shows the first chooser available and returns its answer. `subject` is a scheme or a
    /// content type (`kind` follows from it), asked about by the core's decision
    /// (`Broker.decide`); the answer goes back to `Broker.settle`, which checks and remembers it.
    /// Candidates that are not ``ChooserCandidate/isOfferable`` are not shown.
    func choose(subject: String, candidates: [ChooserCandidate], caller: Caller) async throws(DBusError) -> ChooserAnswer {
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
        let kind = ChoiceSubject.isContentType(subject) ? "type" : "scheme"
        switch await settings.chooser(busChooserAvailable: { await self.busChooserAvailable() }) {
        case .configured(let command):
            return try await runProgram(command, what: "the configured chooser ([Chooser] Command=)", subject: subject, kind: kind,
                                        candidates: candidates, caller: caller, timeout: timeout)
        case .bus:
            return await askBusChooser(subject: subject, kind: kind, candidates: candidates, caller: caller, timeout: timeout)
        case .shipped:
            return try await runProgram([try shippedChooser()], what: "schemebridge-chooser", subject: subject, kind: kind,
                                        candidates: candidates, caller: caller, timeout: timeout)
        }
    }

    // MARK: a chooser program

    private func runProgram(_ argv: [String], what: String, subject: String, kind: String, candidates: [ChooserCandidate],
                            caller: Caller, timeout: Duration) async throws(DBusError) -> ChooserAnswer {
        var env = environment
        env["SCHEMEBRIDGE_CHOOSER_SUBJECT"] = subject
        env["SCHEMEBRIDGE_CHOOSER_KIND"] = kind
        env["SCHEMEBRIDGE_CHOOSER_CALLER"] = caller.appID ?? ""
        env["SCHEMEBRIDGE_CHOOSER_CALLER_NAME"] = callerName(caller)
        env["SCHEMEBRIDGE_CHOOSER_CAN_REMEMBER"] = ChoiceStore.canRemember(caller: caller.appID) ? "1" : "0"
        logger.info("asking \(caller.displayName)'s user to choose for \(subject) with \(argv[0])")
        switch await ChooserProcess.run(argv: argv, environment: env, input: ChooserLines.input(candidates), timeout: timeout) {
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
    private func shippedChooser() throws(DBusError) -> String {
        let path = ProgramLookup.searchPath(environment: environment)
        let beside = CallerIdentity.executablePath(pid: getpid()).map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) + "/" + Self.shippedChooser }
        let display = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let dialog = ProgramLookup.find("zenity", searchPath: path) ?? ProgramLookup.find("kdialog", searchPath: path)
        guard let chooser = beside.flatMap({ ProgramLookup.find($0, searchPath: path) }) ?? ProgramLookup.find(Self.shippedChooser, searchPath: path),
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
                               timeout: Duration) async -> ChooserAnswer {
        let context: [String: DBusValue] = [
            ChooserContract.ContextKey.caller: .string(caller.appID ?? ""), ChooserContract.ContextKey.callerName: .string(callerName(caller)),
            ChooserContract.ContextKey.kind: .string(kind),
            ChooserContract.ContextKey.canRemember: .boolean(ChoiceStore.canRemember(caller: caller.appID)),
        ]
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

    /// The caller's `Name=` when it has an installed entry ("" otherwise).
    private func callerName(_ caller: Caller) -> String {
        guard let id = caller.appID else { return "" }
        return registry.entry(id: DesktopID(id).fileName)?.name ?? ""
    }
}
