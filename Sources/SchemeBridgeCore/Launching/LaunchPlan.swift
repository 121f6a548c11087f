/// How to start a handler: its entry, what it is handed, and how it starts (spawned, or called
/// over D-Bus). Every launch — a URL, a document, a share's target, a pick's provider — is one
/// of these, started by the daemon's one launcher.
public struct LaunchPlan: Sendable {
    /// What to do.
    public enum Action: Sendable, Equatable {
        /// Spawn these processes (one per command).
        case spawn([LaunchCommand])
        /// Call the entry's `org.freedesktop.Application` (``LaunchPlan/call``) on this bus name and object path.
        case activate(busName: String, objectPath: String)
    }
    /// What the handler is handed (``LaunchTargets``).
    public let targets: LaunchTargets
    /// The handler's desktop entry.
    public let entry: DesktopEntry
    public let action: Action
    /// The `org.freedesktop.Application` method an activated handler is called with.
    public let call: ApplicationCall
    /// Why it is started (what is remembered about it, ``LaunchPurpose``).
    public let purpose: LaunchPurpose

    public init(targets: LaunchTargets, entry: DesktopEntry, action: Action, call: ApplicationCall = .open, purpose: LaunchPurpose = .open) {
        self.targets = targets
        self.entry = entry
        self.action = action
        self.call = call
        self.purpose = purpose
    }

    /// The URL opened (a URL's, or the first document's `file://` URL); nil for a pick's provider
    /// or a share of no file.
    public var url: SchemeURL? { targets.urls.first }

    /// The failure when the activated handler's `call` failed (the D-Bus error's name and message).
    public func activationFailure(_ errorName: String, _ message: String) -> OpenFailure {
        let name = entry.name ?? entry.idText
        switch purpose {
        case .open: return OpenFailure(.launchFailed, "\(name) (\(entry.id)) did not open the URL over D-Bus: \(errorName): \(message)")
        case .share: return OpenFailure(.launchFailed, "\(name) did not take the share over D-Bus: \(errorName): \(message)")
        case .pick: return OpenFailure(.launchFailed, "\(name) (\(entry.id)) could not be activated: \(errorName): \(message)")
        }
    }
}

/// What a started handler is handed: typed, never a URL standing in for something else.
public enum LaunchTargets: Sendable, Equatable {
    /// A URL (`OpenURL*`, a received URL).
    case url(SchemeURL)
    /// Documents, as the `file://` URLs of what the handler reads (Inbox copies, the files
    /// themselves, document portal paths): `OpenFile`, a received file, a share's files (maybe none).
    case documents([SchemeURL])
    /// Nothing: a pick's provider is told its token only.
    case nothing

    /// The URLs handed over, in order.
    public var urls: [SchemeURL] {
        switch self {
        case .url(let u): return [u]
        case .documents(let urls): return urls
        case .nothing: return []
        }
    }
}

/// The `org.freedesktop.Application` method an activatable handler is started with.
public enum ApplicationCall: Sendable, Equatable {
    /// `Open(uris, platform_data)`: a URL, documents, a share's "Open in".
    case open
    /// `ActivateAction(action, [], platform_data)`: a share target's action.
    case activateAction(String)
    /// `Activate(platform_data)`: a pick's provider.
    case activate
}

extension LaunchPurpose {
    /// Whether `platform_data` carries the target URLs as `uris` (a share: an action has no other
    /// place for them).
    public var passesURIsInPlatformData: Bool { self == .share }

    /// Whether, once an activated handler's call returned, its owner is watched for the request
    /// (its pid recorded, its leaving ends the request). A share is done when the call returns.
    public var watchesActivatedOwner: Bool { self != .share }

    /// Whether the activation token it was started with is used up (``UsedActivationTokens``):
    /// an open's and a share's; a pick's provider is handed the caller's token as it came.
    public var usesActivationToken: Bool { self != .pick }
}
