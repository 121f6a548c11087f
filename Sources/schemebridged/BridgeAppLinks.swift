import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// `OpenURLWithOptions` with `universal-links-only` (issue 41): only the app that holds the link
/// (verified or selected) opens it, else `NotAppLink` and nothing opens. Decided from what is
/// known; a link not verified yet queues its host for verification.
extension Bridge {
    func openAppLink(_ url: String, options: OpenOptions, sender: String, known: CallerCache.Caller, method: MemberName) async throws(DBusError) -> OpenResults {
        guard options.handler == nil, !options.ask, options.pasteboard == nil else {
            throw DBusError(.invalidArgs, "universal-links-only is not combined with handler, ask or pasteboard")
        }
        let u = try Self.adapt { () throws(OpenFailure) in try broker.validate(url) }
        let request = OpenRequest(url: url, handler: nil, activationToken: options.activationToken,
                                  launchImage: options.launchImage, scale: options.scale, caller: Self.caller(sender, known))
        var splashAvailable = false
        if case .splash = presenter.mode { splashAvailable = true }
        let admitted: (admission: Admission, resolution: AppLinkResolution)
        do {
            admitted = try broker.admit(appLink: u, links: appLinks.links, request: request, searchPath: searchPath,
                                        sessionScale: sessionScale.load(ordering: .relaxed), splashAvailable: splashAvailable)
        } catch {
            if error.kind == .notAppLink { appLinks.refresh("a link no app holds yet was opened") }
            throw DBusError(error)
        }
        return try await launch(admitted.admission, annotation: options.annotation, caller: request.caller, method: method, reply: nil)
    }
}
