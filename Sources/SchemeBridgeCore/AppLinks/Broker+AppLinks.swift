/// Opening a link in the app that holds it (`universal-links-only`, issue 41).
extension Broker {
    /// Admits opening `url` in the app that holds it now (``AppLinks/resolve(_:)``: `verified`
    /// or `selected`; never the network): `NotAppLink` when none does or that app cannot be
    /// started, so nothing opens (a link its apps claim but none holds yet is verified in the
    /// background: ``AppLinks/linkNotHeld(_:)``). The app gets the URL as a document's handler gets its URL
    /// (its `Exec` or D-Bus activation), with the same checks as any launch (allowed callers,
    /// rate, launches in flight).
    public func admit(appLink url: SchemeURL, links: AppLinks, request: OpenRequest, searchPath: [String], sessionScale: Int,
                      splashAvailable: Bool) throws(OpenFailure) -> (admission: Admission, resolution: AppLinkResolution) {
        let resolution = links.resolve(url)
        guard let app = resolution.app else {
            links.linkNotHeld(resolution)
            throw OpenFailure(.notAppLink, "no app holds \(String(BroadcastPrivacy.redacted(url.string).prefix(200))): \(resolution.reason); nothing was opened")
        }
        guard let entry = eligibleEntry(app), entry.ineligibility(searchPath: searchPath) == nil else {
            throw OpenFailure(.notAppLink, "\(app), which holds the link, cannot be started; nothing was opened")
        }
        let plan: LaunchPlan
        do { plan = try router.plan(document: url, entry: entry, searchPath: searchPath) } catch { throw OpenFailure(error) }
        return (try admit(plan, request.launch, sessionScale: sessionScale, splashAvailable: splashAvailable, config: policy.current), resolution)
    }
}

