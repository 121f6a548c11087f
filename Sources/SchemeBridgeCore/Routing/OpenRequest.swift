/// Who asks for a launch and how it should look: what admission checks besides the plan
/// (an open's, a document's, a share's).
public struct LaunchRequest: Sendable {
    /// Who asks.
    public var caller: Caller
    /// The caller's activation token (XDG_ACTIVATION_TOKEN / DESKTOP_STARTUP_ID).
    public var activationToken: String?
    /// Whether the handler's launch image may be shown.
    public var launchImage: Bool
    /// The display scale to pick the image for (the session's when nil).
    public var scale: Int?

    public init(caller: Caller, activationToken: String? = nil, launchImage: Bool = true, scale: Int? = nil) {
        self.caller = caller
        self.activationToken = activationToken
        self.launchImage = launchImage
        self.scale = scale
    }
}

/// A request to open something: what, how, and for whom.
public struct OpenRequest: Sendable {
    /// The URL, parsed once where the request came in.
    public var url: SchemeURL
    /// A desktop id to use instead of the default.
    public var handler: DesktopID?
    /// Whether ``handler`` is already the outcome of ``Broker/decide(_:requested:ask:caller:)``
    /// (nil then means the default): ``Broker/admit(_:searchPath:sessionScale:splashAvailable:callbackLifetime:callback:)``
    /// decides only for a request that was not (a caller of the API that did not decide), so a
    /// request is decided once.
    public var decided: Bool
    /// The caller's activation token (XDG_ACTIVATION_TOKEN / DESKTOP_STARTUP_ID).
    public var activationToken: String?
    /// Whether the handler's launch image may be shown.
    public var launchImage: Bool
    /// The display scale to pick the image for (the session's when nil).
    public var scale: Int?
    /// Who asks.
    public var caller: Caller

    public init(url: SchemeURL, handler: DesktopID? = nil, decided: Bool = false, activationToken: String? = nil, launchImage: Bool = true,
                scale: Int? = nil, caller: Caller) {
        self.url = url
        self.handler = handler
        self.decided = decided
        self.activationToken = activationToken
        self.launchImage = launchImage
        self.scale = scale
        self.caller = caller
    }

    /// The launch's side of it.
    public var launch: LaunchRequest { LaunchRequest(caller: caller, activationToken: activationToken, launchImage: launchImage, scale: scale) }

    /// A request for the caller's text `url`, parsed here: `InvalidURL` when it is no URL.
    public init(url: String, handler: DesktopID? = nil, activationToken: String? = nil, launchImage: Bool = true,
                scale: Int? = nil, caller: Caller) throws(OpenFailure) {
        let parsed: SchemeURL
        do { parsed = try SchemeURL(url) } catch { throw OpenFailure(RouteError.invalidURL(error)) }
        self.init(url: parsed, handler: handler, activationToken: activationToken, launchImage: launchImage, scale: scale, caller: caller)
    }
}

extension ServiceFailure {
    /// The failure for a routing error.
    public init(_ error: RouteError) {
        switch error {
        case .invalidURL: self.init(.invalidURL, error.description)
        case .noHandler: self.init(.noHandler, error.description)
        case .invalidHandler: self.init(.invalidHandler, error.description)
        case .noTerminal: self.init(.launchFailed, error.description)
        case .reservedScheme: self.init(.reservedScheme, error.description)
        }
    }
}
