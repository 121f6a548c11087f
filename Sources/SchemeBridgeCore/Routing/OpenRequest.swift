/// Who asks: a caller on the bus, as identified by the service.
public struct Caller: Sendable, Equatable {
    /// The caller's unique bus name (`:1.42`).
    public var busName: String
    /// Its process id, when the bus told us.
    public var pid: UInt32?
    /// Its app id (systemd scope, Flatpak, installed entry), nil when unidentified.
    public var appID: String?

    public init(busName: String, pid: UInt32? = nil, appID: String? = nil) {
        self.busName = busName
        self.pid = pid
        self.appID = appID
    }

    /// The key its launches are counted under: the app id, else the connection.
    public var rateKey: String { appID ?? busName }
    /// How it is named in messages.
    public var displayName: String { appID ?? "unidentified caller \(busName)" }
}

/// A request to open something: what, how, and for whom.
public struct OpenRequest: Sendable {
    /// The URL as the caller sent it.
    public var url: String
    /// A desktop id to use instead of the default.
    public var handler: String?
    /// The caller's activation token (XDG_ACTIVATION_TOKEN / DESKTOP_STARTUP_ID).
    public var activationToken: String?
    /// Whether the handler's launch image may be shown.
    public var launchImage: Bool
    /// The display scale to pick the image for (the session's when nil).
    public var scale: Int?
    /// Who asks.
    public var caller: Caller

    public init(url: String, handler: String? = nil, activationToken: String? = nil, launchImage: Bool = true,
                scale: Int? = nil, caller: Caller) {
        self.url = url
        self.handler = handler
        self.activationToken = activationToken
        self.launchImage = launchImage
        self.scale = scale
        self.caller = caller
    }
}

/// Why a request was refused or failed; ``kind`` maps one to one onto the contract's errors.
public struct OpenFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds, named as the contract's errors.
    public enum Kind: Sendable, Equatable {
        case invalidURL, noHandler, invalidHandler, launchFailed, accessDenied, reservedScheme, rateLimited
        /// An x-callback URL whose scheme the caller's own entry does not declare.
        case callbackNotOwned
        /// Over a quota (an Inbox's bytes), or out of disk.
        case quotaExceeded
        /// The user cancelled the chooser (or it gave no answer in time).
        case cancelled
        /// `ask` without any chooser to show.
        case noChooser
        /// An x-callback URL handed to a request's handler, opened by someone else.
        case notTheHandler
        /// No share target (or not the one named) accepts every item shared.
        case noTarget
        /// A wrong argument (D-Bus `InvalidArgs`).
        case invalidArgument
        /// Anything else (D-Bus `Failed`).
        case failed
    }

    public let kind: Kind
    /// A message a person can act on.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

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
