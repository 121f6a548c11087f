import DBus
import Synchronization

/// The chooser interface: a desktop shell (or any client) that owns ``busName`` is asked to let
/// the user pick a handler when an open has the `ask` option, no `[Chooser] Command=` is
/// configured and `[Chooser] Bus=true` names the bus chooser. It is told the scheme (or content
/// type) and the caller, never the URL. The service calls
/// `Choose(s scheme_or_type, a(sss) candidates, a{sv} context) → (s desktop_id, b always)`
/// on ``objectPath``; `""` means cancelled. When the question is withdrawn before the answer (the
/// portal closed the request it was asked for), the service calls `Close(s question)` with the
/// context's `question`: the chooser takes its dialog down (its answer is not used). Shipped as
/// `dbus/io.github.schemebridge.Chooser1.xml`.
public enum ChooserContract {
    /// The name a chooser owns on the session bus.
    public static let busName: BusName = "io.github.schemebridge.Chooser1"
    /// The object the service calls.
    public static let objectPath: ObjectPath = "/io/github/schemebridge/Chooser1"
    /// The chooser's interface.
    public static let interface: InterfaceName = "io.github.schemebridge.Chooser1"
    /// `Choose(s, a(sss), a{sv}) → (s, b)`.
    public static let choose: MemberName = "Choose"
    /// `Close(s question) → ()`: the question of that `question` context key is withdrawn (sent
    /// without waiting for a reply: a chooser that does not implement it times out as before).
    public static let close: MemberName = "Close"
    /// The introspection XML's name in `dbus/` and `$XDG_DATA_DIRS/dbus-1/interfaces/`.
    public static let introspectionFileName = interface.rawValue + ".xml"

    /// The keys of `Choose`'s `context`.
    public enum ContextKey {
        /// `caller` (s): the app id of the app that asked, `""` when unidentified.
        public static let caller = "caller"
        /// `caller-name` (s): that app's `Name=`, when it has an installed entry.
        public static let callerName = "caller-name"
        /// `kind` (s): `scheme`, `type`, `pick` (a `PickDocument` sheet: the first argument is
        /// `pick:TYPE`) or `share` — what the first argument is.
        public static let kind = "kind"
        /// `title` (s): a pick's title, when the caller gave one.
        public static let title = "title"
        /// `can-remember` (b): whether "always" can be kept (false for an unidentified caller, and for one
        /// whose identity unrelated programs share: an interpreter, a shell, a terminal).
        public static let canRemember = "can-remember"
        /// `share-types` (as): a share's item types, in order, distinct (kind `share` only).
        public static let shareTypes = "share-types"
        /// `share-count` (u): how many items a share holds (kind `share` only; never their data).
        public static let shareCount = "share-count"
        /// `target-kinds` (as): per candidate, `app`, `device` or `builtin` (kind `share` only).
        public static let targetKinds = "target-kinds"
        /// `activation-token` (s): the caller's activation token, when it gave one: the
        /// chooser's or sheet's window may take focus with it (Wayland `xdg_activation_v1`, X11 startup id).
        public static let activationToken = "activation-token"
        /// `parent-window` (s): the caller's window (`x11:XID` in hexadecimal, `wayland:HANDLE`
        /// exported with xdg-foreign), when it gave one: the chooser's window is transient for it.
        public static let parentWindow = "parent-window"
        /// `question` (s): this question's id, unique in the service's run: what `Close` names.
        public static let question = "question"
    }

    private static let questions = Atomic<UInt64>(0)

    /// A new `question` id.
    public static func newQuestion() -> String { "q\(questions.add(1, ordering: .relaxed).newValue)" }

    /// `Close(question)`'s arguments.
    public static func closeArguments(_ question: String) -> [DBusValue] { [.string(question)] }
}

extension ChooserContract {
    /// `Choose`'s arguments for the question `request` puts (the one the dialogs read, told
    /// the bus chooser's way): the subject, the candidates `a(sss)` (id, name, icon), the context.
    /// `question`: its id (``newQuestion()``), told in the context.
    public static func chooseArguments(_ request: DialogRequest, question: String? = nil) -> [DBusValue] {
        var context: [String: DBusValue] = [ContextKey.caller: .string(request.caller.id), ContextKey.callerName: .string(request.caller.name),
                                            ContextKey.kind: .string(request.kind.rawValue), ContextKey.canRemember: .boolean(request.canRemember)]
        if let question { context[ContextKey.question] = .string(question) }
        if let token = request.activationToken { context[ContextKey.activationToken] = .string(token) }
        if let parentWindow = request.parentWindow { context[ContextKey.parentWindow] = .string(parentWindow) }
        if let title = request.title { context[ContextKey.title] = .string(title) }
        if let share = request.share {
            context[ContextKey.shareTypes] = .strings(share.types)
            context[ContextKey.shareCount] = .uint32(UInt32(clamping: share.count))
            context[ContextKey.targetKinds] = .strings(request.candidates.map(\.kind.rawValue))
        }
        let candidates = request.candidates.map { DBusValue.structure([.string($0.id), .string($0.name), .string($0.icon)]) }
        return [.string(request.subject), .array(element: .structure([.string, .string, .string]), candidates), .vardict(context)]
    }

    /// `Choose`'s answer in `reply`: the id picked (`""`: cancelled) and "always"; nil when the
    /// reply has another signature.
    public static func answer(_ reply: [DBusValue]) -> (id: String, always: Bool)? {
        guard reply.count == 2, case .string(let id) = reply[0], case .boolean(let always) = reply[1] else { return nil }
        return (id, always)
    }
}

/// What the choosing methods of ``Contract/interface`` are called.
extension ContractMethod {
    /// `Choices() → a(sss)`: every remembered choice (caller, scheme or type, desktop id).
    public static let choices: MemberName = "Choices"
    /// `ForgetChoice(s caller, s scheme_or_type) → ()`.
    public static let forgetChoice: MemberName = "ForgetChoice"
    /// `Routes() → a(sss)`: the `[Routes]` of the config (caller pattern, scheme, desktop id).
    public static let routes: MemberName = "Routes"
    /// `EnableIntegration(as schemes) → as`: our entry becomes the desktop's default for schemes.
    public static let enableIntegration: MemberName = "EnableIntegration"
    /// `DisableIntegration(as schemes) → as`: removes the lines ``enableIntegration`` added.
    public static let disableIntegration: MemberName = "DisableIntegration"
    /// `IntegrationStatus() → a{sv}`.
    public static let integrationStatus: MemberName = "IntegrationStatus"
}

/// A remembered choice: `caller` opens `subject` (a scheme or a content type) with `desktopID`.
public struct RememberedChoice: Sendable, Equatable, Hashable {
    public var caller: String
    public var subject: String
    public var desktopID: String

    public init(caller: String, subject: String, desktopID: String) {
        self.caller = caller
        self.subject = subject
        self.desktopID = desktopID
    }

    /// The `(sss)` form.
    public var value: DBusValue { .structure([.string(caller), .string(subject), .string(desktopID)]) }

    /// Reads `a(sss)`; nil for another signature.
    public static func list(_ v: DBusValue) -> [RememberedChoice]? {
        guard let items = v.arrayElements else { return nil }
        var out: [RememberedChoice] = []
        for item in items {
            guard case .structure(let f) = item, f.count == 3, let a = f[0].string, let b = f[1].string, let c = f[2].string else { return nil }
            out.append(RememberedChoice(caller: a, subject: b, desktopID: c))
        }
        return out
    }
}

/// The `IntegrationStatus` answer (`a{sv}`).
public struct IntegrationReport: Sendable, Equatable {
    /// The keys.
    public enum Key {
        /// `enabled` (b): every non-reserved scheme is routed, new ones as they appear.
        public static let enabled = "enabled"
        /// `schemes` (as): the schemes whose default our lines in `mimeapps.list` make SchemeBridge.
        public static let schemes = "schemes"
        /// `changed` (as): schemes whose line we wrote was changed since by someone else (left alone).
        public static let changed = "changed"
        /// `not-routed` (as): schemes with a handler that are not routed (reserved, or left out).
        public static let notRouted = "not-routed"
        /// `list` (s): the `mimeapps.list` written.
        public static let list = "list"
    }

    public var enabled = false
    public var schemes: [String] = []
    public var changed: [String] = []
    public var notRouted: [String] = []
    public var list = ""

    public init(enabled: Bool = false, schemes: [String] = [], changed: [String] = [], notRouted: [String] = [], list: String = "") {
        self.enabled = enabled
        self.schemes = schemes
        self.changed = changed
        self.notRouted = notRouted
        self.list = list
    }

    /// Reads the dictionary (missing keys give empty values).
    public init(_ d: [String: DBusValue]) {
        func strings(_ key: String) -> [String] { (d[key]?.unwrapped.arrayElements ?? []).compactMap(\.string) }
        enabled = d[Key.enabled]?.unwrapped.bool ?? false
        schemes = strings(Key.schemes)
        changed = strings(Key.changed)
        notRouted = strings(Key.notRouted)
        list = d[Key.list]?.unwrapped.string ?? ""
    }

    /// The `a{sv}` form.
    public var dictionary: [String: DBusValue] {
        [Key.enabled: .boolean(enabled), Key.schemes: .strings(schemes), Key.changed: .strings(changed),
         Key.notRouted: .strings(notRouted), Key.list: .string(list)]
    }
}

extension ContractCall where Result == [RememberedChoice] {
    /// `Choices() → a(sss)`.
    public static var choices: Self { .single(ContractSignature.choices, [], RememberedChoice.list) }
    /// `Routes() → a(sss)`: `caller` is the route's caller pattern, `subject` its scheme.
    public static var routes: Self { .single(ContractSignature.routes, [], RememberedChoice.list) }
}

extension ContractCall where Result == Void {
    /// `ForgetChoice(s caller, s scheme_or_type)`.
    public static func forgetChoice(caller: String, _ subject: String) -> Self {
        ContractCall(ContractSignature.forgetChoice, [.string(caller), .string(subject)]) { _ in }
    }
}

extension ContractCall where Result == [String] {
    /// `EnableIntegration(as) → as`: `[]` is every non-reserved scheme, now and as they appear.
    public static func enableIntegration(_ schemes: [String]) -> Self {
        .single(ContractSignature.enableIntegration, [.strings(schemes)]) { v in v.arrayElements?.compactMap(\.string) }
    }
    /// `DisableIntegration(as) → as`: `[]` is every scheme routed, and no more new ones.
    public static func disableIntegration(_ schemes: [String]) -> Self {
        .single(ContractSignature.disableIntegration, [.strings(schemes)]) { v in v.arrayElements?.compactMap(\.string) }
    }
}

extension ContractCall where Result == IntegrationReport {
    /// `IntegrationStatus() → a{sv}`.
    public static var integrationStatus: Self {
        .single(ContractSignature.integrationStatus, []) { v in v.stringDictionary.map(IntegrationReport.init) }
    }
}
