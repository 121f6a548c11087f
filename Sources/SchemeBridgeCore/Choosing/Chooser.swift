import Glibc

/// What a chooser is shown, whichever chooser it is (a program's dialogs' message, a `Chooser1`
/// call's context): worked out once from the question, the caller and the context.
public struct ChooserDialog: Sendable, Equatable {
    /// Who asks, as the dialog names it.
    public struct Asker: Sendable, Equatable {
        /// The caller's app id ("" unidentified).
        public var id: String
        /// The caller's label (``CallerLabel``: its entry's `Name`, else its id or program; "" unidentified).
        public var name: String
        /// Our command line run from a terminal (no app behind it).
        public var commandLine: Bool
    }

    /// ``ChooserPrompt/kind``: `scheme`, `type`, `pick` or `share`.
    public let kind: String
    /// The scheme, content type, `pick:TYPE` or share subject asked about.
    public let subject: String
    /// The candidates that may be shown (``ChooserCandidate/isOfferable``), default first.
    public let candidates: [ChooserCandidate]
    public let asker: Asker
    /// Whether "always" can be remembered for this caller (``ChoiceStore/canRemember(caller:)``).
    public let canRemember: Bool
    /// A pick's title.
    public let title: String?
    /// The token the chooser's window may take focus with (the sharing app's, else the caller's),
    /// when it is valid (``ActivationToken/isValid(_:)``).
    public let activationToken: String?
    /// The caller's window (`x11:XID`, `wayland:HANDLE`).
    public let parentWindow: String?
    /// A file a device sent: the device's name.
    public let receivedFrom: String?
    /// A share's items.
    public let share: ShareQuestion?

    /// The dialog for `question` from `caller` (`name`: its label), told `context`.
    public init(_ question: HandlerQuestion, caller: Caller, name: String, context: ChooserContext) {
        let prompt = ChooserPrompt(subject: question.subject, share: context.share)
        kind = prompt.kind
        subject = question.subject
        candidates = ChooserCandidate.offerable(question.candidates)
        asker = Asker(id: caller.appID ?? "", name: name, commandLine: caller.throughCLI && (caller.appID ?? "").isEmpty)
        canRemember = ChoiceStore.canRemember(caller: caller.rememberingID)
        title = context.title
        activationToken = prompt.activationToken(caller: context.activationToken).flatMap { ActivationToken.isValid($0) ? $0 : nil }
        parentWindow = context.parentWindow
        receivedFrom = context.receivedFrom
        share = context.share
    }

    /// A candidate's kind in a share's sheet (``ShareQuestion/kind(_:)``); nil outside a share.
    public func targetKind(_ candidate: ChooserCandidate) -> String? {
        share == nil ? nil : ShareQuestion.kind(candidate.id.text)
    }
}

/// What a dialog program's answer said (the dialogs' message, decoded by the daemon).
public enum DialogReply: Sendable, Equatable {
    /// `activationToken`: the fresh token the dialog obtained for the chosen app's launch
    /// (``SettledHandler/launchToken(callerToken:)``).
    case chosen(id: String, always: Bool, activationToken: String? = nil)
    case cancelled
    /// The dialog could not be shown (`reason`: its own words).
    case failed(reason: String?)
}

/// A dialog's output that is no answer of the dialogs' message.
public struct DialogDecodeFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What a `Chooser1` client answered.
public enum BusChooserReply: Sendable, Equatable {
    /// `(sb)`: the id picked ("" cancelled) and "always".
    case answered(id: String, always: Bool)
    /// A reply of another signature.
    case wrongSignature
    case failed(BusCallFailure)
}

/// What the chooser needs outside the core: the dialogs' message (encoding a question, decoding
/// an answer) and the `io.github.schemebridge.Chooser1` client on the bus. The daemon implements it.
public protocol ChooserShowing: Sendable {
    /// `dialog` as the one line a dialog program reads on its stdin.
    func requestLine(_ dialog: ChooserDialog) -> [UInt8]
    /// The answer in a dialog program's output.
    func decodeAnswer(_ output: [UInt8]) throws(DialogDecodeFailure) -> DialogReply
    /// Whether a client owns (or the bus can start) `Chooser1`.
    func busChooserAvailable() async -> Bool
    /// Asks the `Chooser1` client, waiting at most `timeout`.
    func askBus(_ dialog: ChooserDialog, timeout: Duration) async -> BusChooserReply
}

/// The `ask` option, a share's sheet, a pick's sheet: shows a chooser and returns the handler the
/// user picked (``ChooserPort``; ``Broker/settle(_:for:caller:chooser:context:warn:)`` checks and
/// remembers it). Which chooser (``ChooserSettings/chooser(busChooserAvailable:)``,
/// ``ShippedChooser``): `[Chooser] Command=`, a `Chooser1` client when `Bus=true`, else the shipped
/// `schemebridge-dialog` (started ahead as a spare: ``SheetSpare``). A program is told the question
/// on its stdin and answers on its stdout, never the URL; it runs through ``ChooserProcess`` (its
/// own thread waits): nothing holds the D-Bus loop thread or a shared task thread while a person
/// decides. At most one chooser per app at once (``ChooserSlots``).
public final class Chooser<Port: ChooserShowing>: ChooserPort {
    public let broker: Broker
    public let port: Port
    /// The environment chooser programs run with (the handlers' base environment).
    public let environment: [String: String]
    /// The `Chooser1` bus name, as messages suggest it.
    let busName: String
    let log: @Sendable (ServiceLogLevel, String) -> Void
    /// Choosers open now.
    private let slots = ChooserSlots()
    /// The shipped dialog started ahead of the next question.
    public let spareSheet: SheetSpare

    public init(broker: Broker, port: Port, environment: [String: String], busName: String, log: @escaping @Sendable (ServiceLogLevel, String) -> Void) {
        (self.broker, self.port, self.environment, self.busName, self.log) = (broker, port, environment, busName, log)
        spareSheet = SheetSpare(environment: environment, log: { notice, message in log(notice ? .warning : .info, message) }) { [broker] in
            let c = broker.policy.current.chooser
            return c.spareSheet && c.command == nil && !c.bus
        }
    }

    /// Starts the shipped dialog ahead of the first question, when it is what would be shown.
    public func prepareSpareSheet() {
        if let shipped = try? shippedChooser() { spareSheet.prepare(program: shipped.path) }
    }

    /// The shipped dialog in libexec beside `schemebridged`, beside it, or on `PATH`.
    private func shippedChooser() throws(ServiceFailure) -> ShippedChooser {
        let own = CallerIdentity.executablePath(pid: getpid()).map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) }
        return try ShippedChooser.find(environment: environment, ownDirectory: own, busName: busName)
    }

    /// Shows the first chooser available and returns its answer (unchecked). Candidates that are
    /// not offerable are not shown; none left is a cancel. `RateLimited` while the caller has one open.
    public func choose(_ question: HandlerQuestion, caller: Caller, context: ChooserContext) async throws(OpenFailure) -> ChooserAnswer {
        let dialog = ChooserDialog(question, caller: caller, name: callerName(caller), context: context)
        guard !dialog.candidates.isEmpty else { return .cancelled(reason: "no application could be offered") }
        let key = ChooserSlots.key(for: caller)
        guard slots.take(key) else {
            throw OpenFailure(.rateLimited, "a chooser is already open for \(caller.displayName) (or \(ChooserSlots.perPathGroup) for programs known only "
                + "by their path, or \(ChooserSlots.total) in all); answer it first")
        }
        defer { slots.give(key) }
        let settings = broker.policy.current.chooser
        let timeout = Duration.seconds(settings.timeout)
        switch await settings.chooser(busChooserAvailable: { await self.port.busChooserAvailable() }) {
        case .configured(let command):
            return try await runProgram(command, what: "the configured chooser ([Chooser] Command=)", dialog: dialog, caller: caller, timeout: timeout)
        case .bus:
            log(.info, "asking \(caller.displayName)'s user to choose for \(dialog.subject) through \(busName)")
            return Self.answer(await port.askBus(dialog, timeout: timeout), timeout: timeout)
        case .shipped:
            let shipped = try shippedChooser()
            return try await runProgram([shipped.path], what: ShippedChooser.name, dialog: dialog, caller: caller, timeout: timeout, spare: true)
        }
    }

    /// Runs `argv` (the spare when `spare` and one is ready) with the dialog on its stdin and reads its answer.
    private func runProgram(_ argv: [String], what: String, dialog: ChooserDialog, caller: Caller, timeout: Duration,
                            spare: Bool = false) async throws(OpenFailure) -> ChooserAnswer {
        let input = port.requestLine(dialog)
        log(.info, "asking \(caller.displayName)'s user to choose for \(dialog.subject) with \(argv[0])")
        let run = { [environment] in await ChooserProcess.run(argv: argv, environment: environment, input: input, timeout: timeout) }
        switch spare ? await spareSheet.run(program: argv[0], input: input, timeout: timeout, cold: run) : await run() {
        case .failedToStart(let error):
            throw OpenFailure(.noChooser, "\(what) cannot be started: \(error.reason)")
        case .timedOut:
            return .cancelled(reason: "the chooser gave no answer in \(timeout.components.seconds) s ([Chooser] Timeout=) and was closed")
        case .finished(let status, let output):
            let answer = Self.answer(status: status, output: output, decode: port.decodeAnswer)
            if case .failed(let reason) = answer { log(.warning, "\(what) failed: \(reason)") }
            return answer
        }
    }

    /// The answer of a dialog program that ended with `status` after printing `output`: its
    /// reply; a dialog that answered nothing because a signal ended it (the session closing) is a
    /// cancel; anything else that is no answer of the dialogs' message — nothing, another
    /// protocol, another version — is the dialog's failure (the caller gets `NoChooser`), never a cancel.
    static func answer(status: Int32, output: [UInt8], decode: ([UInt8]) throws(DialogDecodeFailure) -> DialogReply) -> ChooserAnswer {
        do throws(DialogDecodeFailure) {
            switch try decode(output) {
            case .chosen(let id, let always, let token): return .picked(ChooserTargetID(id), always: always, activationToken: token)
            case .cancelled: return .cancelled(reason: "the user cancelled the dialog")
            case .failed(let reason): return .failed(reason: "the chooser failed: the dialog could not be shown: \(reason ?? "no reason given")")
            }
        } catch {
            if status > 128 && status <= 128 + 64 && output.isEmpty { return .cancelled(reason: "the dialog was ended by signal \(status - 128)") }
            return .failed(reason: "the chooser failed (exit status \(status)) with no answer of the dialogs' message: \(error.description); "
                + "the service's log has its message")
        }
    }

    /// The answer of a `Chooser1` client: "" is a cancel, no answer in `timeout` too.
    static func answer(_ reply: BusChooserReply, timeout: Duration) -> ChooserAnswer {
        switch reply {
        case .answered(let id, let always):
            return id.isEmpty ? .cancelled(reason: "the user cancelled the chooser") : .picked(ChooserTargetID(id), always: always)
        case .wrongSignature:
            return .failed(reason: "the chooser on the bus answered with the wrong signature (expected (sb))")
        case .failed(let error) where error.name == "org.freedesktop.DBus.Error.NoReply":
            return .cancelled(reason: "the chooser on the bus gave no answer in \(timeout.components.seconds) s ([Chooser] Timeout=)")
        case .failed(let error):
            return .failed(reason: "the chooser on the bus failed: \(error.name): \(error.message)")
        }
    }

    /// How the caller is named to the user (``CallerLabel``). A label only.
    private func callerName(_ caller: Caller) -> String {
        CallerLabel.label(caller.id, pid: caller.throughCLI ? nil : caller.pid.map { Int32(bitPattern: $0) }) { [registry = broker.registry] id in
            registry.entry(id: id)?.name
        }
    }
}
