/// What a `FileChooser.OpenFile` needs of the daemon once its route is known
/// (``Broker/openFile(_:route:caller:chooser:port:progress:)``): the desktop's own backend asked
/// the same call, a provider started with a pick request, the answer encoded, the log.
public protocol PortalFileChooserPort: Sendable {
    /// The answer as the frontend gets it.
    associatedtype Answer: Sendable
    /// The desktop's own backend's answer to the same call (it enters ``PortalCallStage/delegated``).
    func delegated(_ progress: PortalCallProgress) async -> Answer
    /// Starts `provider` with a pick request for `subject` (it enters ``PortalCallStage/picking(_:)``)
    /// and returns what it handed over, placed in the app's Inbox (``Broker/placeProvided(_:provider:caller:hostInbox:)``):
    /// the paths. `Cancelled` when the provider (or the app's `Close`) cancelled; any other
    /// failure is the provider's.
    func provide(_ provider: DesktopID, subject: PickSubject, progress: PortalCallProgress) async throws(OpenFailure) -> [[UInt8]]
    /// The answer `response` with the `file://` uris of `paths` (success only).
    func answer(_ response: PortalResponse, paths: [[UInt8]]) -> Answer
    /// Tells the log.
    func log(_ message: String)
}

extension Broker {
    /// The rest of a `FileChooser.OpenFile` after ``route(_:caller:ownRequest:)``: the desktop's
    /// chooser for a delegated route; else the pick decision settled (the sheet when it asks,
    /// with the app's title, attached to its window), "Files…" handed to the desktop's chooser,
    /// a provider's documents as the answer. A cancel (the sheet, the provider) is 1; a provider
    /// that fails or gives nothing, a sheet that cannot be shown, 2.
    public func openFile<Port: PortalFileChooserPort>(_ request: FileChooserRequest, route: FileChooserRoute, caller: Caller,
                                                      chooser: some ChooserPort, port: Port, progress: PortalCallProgress) async -> Port.Answer {
        let subject: PickSubject, decision: HandlerDecision
        switch route {
        case .delegate(let why):
            port.log("portal: \(caller.displayName)'s Open dialog is the desktop's: \(why)")
            return await port.delegated(progress)
        case .pick(let s, let d):
            (subject, decision) = (s, d)
        }
        let provider: DesktopID
        do {
            let context = ChooserContext(title: request.title.isEmpty ? nil : request.title, parentWindow: request.parentWindow)
            let settled = try await settle(decision, for: .pick, caller: caller, chooser: chooser, context: context, warn: port.log)
            guard let id = settled.id else { return port.answer(.other, paths: []) }
            provider = id.desktopID
        } catch {
            port.log("portal: \(caller.displayName)'s pick ended: \(error.message)")
            return port.answer(error.kind == .cancelled ? .cancelled : .other, paths: [])
        }
        if ChooserTargetID(provider) == Self.filesCandidate.id {
            port.log("portal: \(caller.displayName) chose Files…: the desktop's")
            return await port.delegated(progress)
        }
        do {
            let paths = try await port.provide(provider, subject: subject, progress: progress)
            guard !paths.isEmpty else { return port.answer(.other, paths: []) }
            port.log("portal: \(provider) handed \(caller.displayName) \(paths.count) document(s), placed in its Inbox")
            return port.answer(.success, paths: paths)
        } catch {
            port.log("portal: \(provider) gave \(caller.displayName) nothing: \(error.message)")
            return port.answer(error.kind == .cancelled ? .cancelled : .other, paths: [])
        }
    }
}
