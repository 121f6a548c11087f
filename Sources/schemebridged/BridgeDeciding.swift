import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// Adapts the core's one handler decision (`Broker.decide`, `Broker.settle`) for `OpenURL*`
/// and `OpenFile`: it tells the core who the caller is and shows the chooser the core asks for.
extension Bridge {
    /// The handler for `subject` and whether it is a pinned x-callback's entry; nil: a URL's
    /// default, looked up by admission.
    func handler(for subject: OpenSubject, options: OpenOptions, sender: String,
                 known: CallerCache.Caller) async throws(DBusError) -> (id: String?, pinnedCallback: Bool) {
        let caller = Self.caller(sender, known)
        let pid = known.pid.map { Int32(bitPattern: $0) }
        let sandboxAppID = known.sandboxed ? known.appID : nil
        let (broker, replies, logger) = (self.broker, self.replies, self.logger)
        let decision = try await Self.adaptAsync { () async throws(OpenFailure) in
            try await broker.decide(subject, requested: options.handler, ask: options.ask, caller: caller) { handler in
                await replies.isHandler(handler, sender: sender, pid: pid, sandboxAppID: sandboxAppID)
            }
        }
        switch decision {
        case .open(let id, let reason):
            return (id, reason == .callback)
        case .ask(let question):
            let answer = try await choosers.choose(subject: question.subject, candidates: question.candidates, caller: caller,
                                                   activationToken: options.activationToken)
            let id = try await Self.adaptAsync { () async throws(OpenFailure) in
                try await broker.settle(answer, to: question, caller: caller, warn: { logger.notice("\($0)") })
            }
            return (id, false)
        }
    }
}
