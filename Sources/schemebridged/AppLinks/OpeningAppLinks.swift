import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// `OpenURLWithOptions` with `universal-links-only` (issue 41): only the app that holds the link
/// (verified or selected) opens it, else `NotAppLink` and nothing opens. Decided from what is
/// known; a link not verified yet queues its host for verification (in the core).
extension Opening {
    func openAppLink(_ url: SchemeURL, options: OpenOptions, caller: Caller, method: MemberName) async throws -> OpenResults {
        guard options.handler == nil, !options.ask, options.pasteboard == nil else {
            throw DBusError(.invalidArgs, "universal-links-only is not combined with handler, ask or pasteboard")
        }
        let request = OpenRequest(url: url, handler: nil, activationToken: options.activationToken,
                                  launchImage: options.launchImage, scale: options.scale, caller: caller)
        let admitted: (admission: Admission, resolution: AppLinkResolution)
        do {
            admitted = try broker.admit(appLink: url, links: appLinks.links, request: request, searchPath: searchPath,
                                        sessionScale: scale.current, splashAvailable: splashAvailable)
        } catch {
            throw DBusError(error)
        }
        return try await launch(admitted.admission, annotation: options.annotation, caller: caller, method: method, reply: nil)
    }
}
