/// The launch image while the app `ChooseApplication` chose starts (issue 40): the frontend
/// launches it after SchemeBridge's answer, so SchemeBridge puts the image up as it answers —
/// the chosen entry's image for the URL's scheme at the session's scale, found as `OpenURL`
/// finds it (``LaunchImageIndex``), when `[LaunchImages]` are on. A document has none (launch
/// images are per scheme, as for `OpenFile`). The splash comes down when the app's first window
/// appears (its `StartupWMClass`, or the startup id when the frontend hands on the app's
/// activation token), or at the timeout: the frontend, not SchemeBridge, knows the app's pid.
public struct PortalLaunchImage: Sendable, Equatable {
    /// The image file.
    public let image: String
    /// The chosen app's entry.
    public let entry: DesktopEntry
    /// The startup id the splash waits for: the app's activation token, which the frontend hands
    /// to the app it launches, else a new one (the splash then goes by window class or timeout).
    public let startupID: String
    /// The policy in force (the splash's delays and timeout).
    public let config: PolicyConfig
}

extension Broker {
    /// The launch image for `answer` to `request` at `scale`; nil when nothing is launched, the
    /// subject is a document, images are off, or the app has none.
    public func portalLaunchImage(_ request: AppChooserRequest, answer: AppChooserAnswer, scale: Int) -> PortalLaunchImage? {
        guard answer.response == .success, let choice = answer.choice, case .url(let url) = request.subject else { return nil }
        let config = policy.current
        guard config.launchImages, let entry = eligibleEntry(DesktopID(choice)),
              let image = launchImages.image(for: entry, scheme: url.scheme.name, scale: scale) else { return nil }
        return PortalLaunchImage(image: image, entry: entry, startupID: request.activationToken ?? LaunchContext.newStartupID(), config: config)
    }
}
