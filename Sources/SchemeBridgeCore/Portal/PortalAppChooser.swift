import Synchronization

/// SchemeBridge as xdg-desktop-portal's `org.freedesktop.impl.portal.AppChooser` backend (issue 40):
/// a sandboxed app's `OpenURI`/`OpenFile` reaches the portal frontend, which asks its AppChooser
/// backend which application to launch (`ChooseApplication(handle, app_id, parent_window, choices,
/// options)`) and launches the answer's `choice` itself. The answer comes from the one decision
/// path (``Broker/decide(_:requested:ask:caller:)``, ``Broker/settle(_:for:caller:chooser:context:warn:)``)
/// with the caller taken to be the app the frontend names.
///
/// What the frontend passes (checked in xdg-desktop-portal 1.16.0 `src/open-uri.c` and current
/// main): `options` `content_type` (`x-scheme-handler/<scheme>` for a URL), `uri` (for a file,
/// its host `file://` URI), `filename` (a file's base name), `last_choice`, and `activation_token`
/// (1.16 passes the URI there by mistake: a value that is not a valid token is dropped).
public struct AppChooserRequest: Sendable, Equatable {
    /// The Flatpak (or Snap) app the frontend names; nil for a host app (`""`).
    public let appID: CallerID?
    /// What is opened: a URL (its scheme) or a document (its content type).
    public let subject: OpenSubject
    /// The applications the frontend found (desktop ids without `.desktop`); informational.
    public let choices: [String]
    /// The caller's activation token, when the frontend passed a valid one.
    public let activationToken: String?
    /// The app's window the dialog is attached to (``PortalParentWindow``); nil: none, or one
    /// of neither form (``parentWindowWarning`` says so).
    public let parentWindow: String?
    /// Why the frontend's `parent_window` was dropped, when it was.
    public let parentWindowWarning: String?

    /// At most this many choices are kept.
    public static let maximumChoices = 256

    /// Decodes a `ChooseApplication` call; `InvalidArgs` when it names no valid app id, URL or type.
    /// `appID`: the app the frontend names; `parentWindow`: the call's `parent_window` (``PortalParentWindow``).
    public init(appID app: PortalAppName, choices: [String], options: [String: String], parentWindow: String = "") throws(OpenFailure) {
        (self.parentWindow, self.parentWindowWarning) = PortalParentWindow.normalized(parentWindow)
        if app.isHost {
            self.appID = nil
        } else {
            // A Flatpak app id is a D-Bus well-known name; a Snap's is a name of its own, kept as
            // given when it is a valid desktop id's stem.
            guard AppID.isValid(app.text) || DesktopID.isValid(app.text + ".desktop"), let id = app.callerID else {
                throw OpenFailure(.invalidArgument, "'\(app.text.prefix(80))' is not an app id")
            }
            self.appID = id
        }
        self.choices = Array(choices.filter { DesktopID.isValid($0 + ".desktop") }.prefix(Self.maximumChoices))
        self.activationToken = options["activation_token"].flatMap { ActivationToken.isValid($0) && !$0.contains(":") ? $0 : nil }
        let type = options["content_type"].map(Registry.lowercasedASCII)
        let uri = options["uri"]
        if let type, let scheme = Scheme.fromMimeType(type) {
            // A URL: its scheme decides; the URL, when given, must be of that scheme.
            guard let uri else { throw OpenFailure(.invalidArgument, "the portal named \(type) but no uri") }
            let url: SchemeURL
            do { url = try SchemeURL(uri) } catch { throw OpenFailure(.invalidArgument, "the portal's uri is not a URL: \(error.description)") }
            guard url.scheme.name == scheme else {
                throw OpenFailure(.invalidArgument, "the portal's uri is not a \(scheme): URL")
            }
            subject = .url(url)
        } else if let type {
            subject = .document(try ContentType(type))
        } else if let uri {
            do { subject = .url(try SchemeURL(uri)) } catch { throw OpenFailure(.invalidArgument, "the portal's uri is not a URL: \(error.description)") }
        } else {
            throw OpenFailure(.invalidArgument, "the portal named neither a content type nor a URI")
        }
    }

    /// The caller the decision is made for: the app the frontend names (sandboxed: it learns
    /// less), reached through the frontend's connection. A host app (no app id) has no identity
    /// of its own here: nothing remembered or routed decides for it.
    public func caller(frontend busName: String, pid: UInt32?) -> Caller {
        Caller(busName: busName, pid: pid, id: appID, sandboxed: appID != nil, sharedIdentity: appID == nil)
    }
}

/// The portal's response codes (`org.freedesktop.impl.portal.Request`).
public enum PortalResponse: UInt32, Sendable {
    case success = 0
    case cancelled = 1
    case other = 2
}

/// A `ChooseApplication` answer: the response code and, on success, the `choice` (a desktop id
/// without `.desktop`, which the frontend launches).
public struct AppChooserAnswer: Sendable, Equatable {
    public let response: PortalResponse
    public let choice: String?
    /// Why (for the log).
    public let reason: String

    public init(response: PortalResponse, choice: String?, reason: String) {
        self.response = response
        self.choice = choice
        self.reason = reason
    }
}

extension Broker {
    /// The answer to a `ChooseApplication`: the caller's remembered choice, a `[Routes]` line for
    /// its app id, else `chooser` (the frontend asks its backend only when it wants the user asked),
    /// else the scheme's default; the user's cancel is `cancelled` (1), anything else that decides
    /// nothing is `other` (2).
    public func answer(_ request: AppChooserRequest, caller: Caller, chooser: some ChooserPort,
                       warn: (String) -> Void) async -> AppChooserAnswer {
        do {
            let decision = try decide(request.subject, requested: nil, ask: true, caller: caller)
            let settled = try await settle(decision, for: .open, caller: caller, chooser: chooser,
                                           context: ChooserContext(activationToken: request.activationToken, parentWindow: request.parentWindow),
                                           warn: warn)
            return portalAnswer(request, settled: settled, caller: caller)
        } catch {
            return Self.portalAnswer(error)
        }
    }

    /// ``answer(_:caller:chooser:warn:)`` when it needs no chooser (remembered, routed, the
    /// default, or nothing opens it): decided at once from what is in memory, so the adapter
    /// answers on the bus's loop thread with no hop (the whole backend's share of a routed
    /// `OpenURI`); nil when the user is to be asked.
    public func answerAtOnce(_ request: AppChooserRequest, caller: Caller) -> AppChooserAnswer? {
        let decision: HandlerDecision
        do { decision = try decide(request.subject, requested: nil, ask: true, caller: caller) } catch { return Self.portalAnswer(error) }
        guard case .open(let id, let reason) = decision else { return nil }
        return portalAnswer(request, settled: SettledHandler(id: id, reason: reason), caller: caller)
    }

    private func portalAnswer(_ request: AppChooserRequest, settled: SettledHandler, caller: Caller) -> AppChooserAnswer {
        var id = settled.id?.text
        if id == nil, case .url(let url) = request.subject { id = router.effectiveDefault(forScheme: url.scheme.name)?.idText }
        guard let id, eligibleEntry(DesktopID(fileName: id)) != nil else {
            return AppChooserAnswer(response: .other, choice: nil, reason: "no application opens \(request.subject.choiceKey)")
        }
        let why: String
        switch settled.reason {
        case nil: why = "the user chose it"
        case .remembered?: why = "remembered for \(caller.displayName)"
        case .route(let pattern)?: why = "[Routes] \(pattern)"
        default: why = "the default"
        }
        return AppChooserAnswer(response: .success, choice: DesktopID(id).appID, reason: why)
    }

    private static func portalAnswer(_ error: OpenFailure) -> AppChooserAnswer {
        AppChooserAnswer(response: error.kind == .cancelled ? .cancelled : .other, choice: nil, reason: error.message)
    }
}

/// Who may speak for an app in `ChooseApplication`: the real xdg-desktop-portal frontend. Any
/// program on the session bus can call the backend with any app id (and so open with that app's
/// routes and remembered choices); only the frontend is believed. Its executable must be a file
/// named `xdg-desktop-portal` only root can change (``SystemPath/isProtected(_:)``:
/// `/usr/libexec/xdg-desktop-portal`), run outside any sandbox and not replaced since it started.
public enum PortalFrontendRule {
    /// The frontend's executable file names.
    public static let programs: Set<String> = ["xdg-desktop-portal"]

    /// Nil when `process` is the frontend; else why not (for the log).
    public static func refusal(of process: EngineProcess) -> String? {
        let program = process.executable.split(separator: "/").last.map(String.init) ?? ""
        if process.sandboxed { return "it runs in a Flatpak sandbox" }
        guard programs.contains(program) else { return "its program is \(DeviceEngineRule.describe(process.executable)), not xdg-desktop-portal" }
        guard process.executableProtected else {
            return "its program \(DeviceEngineRule.describe(process.executable)) is not a system file only root can change"
        }
        return nil
    }
}

/// The connections found to be the real frontend (``PortalFrontendRule``), with their pids. A
/// unique name is never reused on a bus, so each is judged once (and later calls from it are
/// answered with no look at its process); refusals are not kept: any program could call once
/// from each of many connections and grow the set.
public final class PortalFrontends: Sendable {
    private let judged = Mutex<[String: UInt32]>([:])

    public init() {}

    /// `sender`'s pid when it was found to be the frontend; nil when it was not judged so.
    public func pid(of sender: String) -> UInt32? { judged.withLock { $0[sender] } }

    /// Judges `sender`, whose pid the bus gave as `pid` (nil: it did not say) and whose process
    /// was examined as `process` (nil: it could not be): nil when it is the frontend (then
    /// remembered, ``pid(of:)``), else why not, for the log and the `AccessDenied`.
    public func judge(_ sender: String, pid: UInt32?, process: EngineProcess?) -> String? {
        guard let pid, pid > 0, pid <= UInt32(Int32.max) else { return "the bus does not say which process it is" }
        guard let process else { return "its process \(pid) could not be examined" }
        if let refusal = PortalFrontendRule.refusal(of: process) { return refusal }
        judged.withLock { $0[sender] = pid }
        return nil
    }
}
