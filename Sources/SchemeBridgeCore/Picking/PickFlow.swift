/// `PickDocument` in the core's one pipeline: decided when the call comes in (`provider` >
/// remembered > route > the sheet with "Files…"), a reply request made at once (the caller gets
/// its object), then — after the method's reply — the sheet settled, and the provider started
/// with the request's token (or "Files…", the daemon's file chooser). The outcome is the
/// request's `Response`; a failure or a cancel on the way ends the request
/// (``ReplyRequests/end(_:error:)``). Who may answer is the reply machinery's: only the launched
/// provider, and its exit without an answer is code 2.
public struct PickFlow<Replies: ReplyRequestsPort, Launch: LaunchPort, Choosing: ChooserPort>: Sendable {
    public let broker: Broker
    public let replies: ReplyRequests<Replies>
    public let launcher: PlanLauncher<Launch>
    public let chooser: Choosing
    /// Where the flow's lines go.
    let log: @Sendable (ServiceLogLevel, String) -> Void

    /// How long a pick waits for its provider (the user browses in the provider's own UI).
    public static var timeout: Duration { .seconds(3600) }

    public init(broker: Broker, replies: ReplyRequests<Replies>, launcher: PlanLauncher<Launch>, chooser: Choosing,
                log: @escaping @Sendable (ServiceLogLevel, String) -> Void) {
        (self.broker, self.replies, self.launcher, self.chooser, self.log) = (broker, replies, launcher, chooser, log)
    }

    /// A pick's call, decoded.
    public struct Pick: Sendable {
        public var subject: PickSubject
        /// The provider named by the caller (nil: decided).
        public var provider: String?
        /// Several documents may be picked.
        public var multiple: Bool
        /// The caller's activation token, the sheet's title and parent window.
        public var context: ChooserContext

        public init(subject: PickSubject, provider: String?, multiple: Bool, context: ChooserContext) {
            (self.subject, self.provider, self.multiple, self.context) = (subject, provider, multiple, context)
        }
    }

    /// Decides `pick` for `caller` (the connection `sender`) and makes its request, whose
    /// response is held until published; then ``carryOut(_:_:decision:caller:files:)`` in a task.
    public func begin(_ pick: Pick, caller: Caller, sender: String) throws(ServiceFailure) -> (request: RequestTable.Request, decision: HandlerDecision) {
        let decision = try broker.decidePick(pick.subject, provider: pick.provider, caller: caller)
        let request = try replies.begin(caller: sender, handlerID: decision.handler, timeout: Self.timeout,
                                        purpose: .pick(pick.subject, multiple: pick.multiple))
        return (request, decision)
    }

    /// Settles `decision` (the sheet, when the core asks) and starts the provider, or runs `files`
    /// for "Files…" with the token to start it with. The provider starts with the sheet's fresh
    /// token, never the caller's spent one. A request closed while the sheet was up starts
    /// nothing; a failure ends the request.
    public func carryOut(_ request: RequestTable.Request, _ pick: Pick, decision: HandlerDecision, caller: Caller,
                         files: @Sendable (_ activationToken: String?) async throws -> Void) async {
        do {
            let settled = try await broker.settle(decision, for: .pick, caller: caller, chooser: chooser, context: pick.context,
                                                  warn: { log(.notice, $0) })
            guard let provider = settled.id else { throw ServiceFailure(.noHandler, "no provider was decided") }
            let token = settled.launchToken(callerToken: pick.context.activationToken)
            guard replies.table.request(request.id) != nil else { return }
            replies.table.assign(request.id, handlerID: provider)
            if provider == .files {
                try await files(token)
            } else {
                try await startProvider(provider.desktopID, request: request, activationToken: token, caller: caller)
            }
        } catch {
            log(.notice, "a pick for \(caller.displayName) ended: \(error)")
            replies.end(request.id, error: error)
        }
    }

    /// `ProvideDocuments` from `sender` for the pick `token` names: only its launched provider
    /// may answer (``ReplyRequests/pending(token:sender:)``) and a reply's token takes no
    /// documents; `fds` (named `names`, of `types`) are checked and copied (``PickAnswer``).
    public func provided(_ fds: [some HeldDescriptor], names: [String], types: [String], token: String, sender: String,
                         database: ContentTypeDatabase, descriptors: DescriptorWork) async throws -> (request: RequestTable.Request, documents: [PickedDocument]) {
        let request = try await replies.pending(token: token, sender: sender)
        guard case .pick(let subject, let multiple) = request.purpose else {
            throw ServiceFailure(.invalidArgument, "this token is for a reply, not a pick: answer it with Reply")
        }
        let documents = try await PickAnswer.take(fds.map(\.rawValue), names: names, types: types, subject: subject, multiple: multiple,
                                                  database: database, descriptors: descriptors, key: sender, keep: fds)
        return (request, documents)
    }

    /// Starts provider `id` with `request`'s token (``Broker/providerPlan(_:)``): spawned
    /// (`SCHEMEBRIDGE_PICK_TOKEN` in its environment; its exit without an answer fails the
    /// request), or `org.freedesktop.Application.Activate(platform_data)` with `pick-token` (its
    /// leaving the bus fails the request).
    public func startProvider(_ id: DesktopID, request: RequestTable.Request, activationToken: String?, caller: Caller) async throws(ServiceFailure) {
        let plan = try broker.providerPlan(id)
        var context = LaunchContext(source: caller.appID, activationToken: activationToken, startupID: activationToken)
        context.pickToken = request.token
        log(.info, "asking \(id) for documents for \(caller.displayName)")
        _ = try await launcher.start(plan, context: context, request: request.id)
    }
}
