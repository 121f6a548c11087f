import Glibc
import LinuxSystem

/// SchemeBridge as xdg-desktop-portal's `org.freedesktop.impl.portal.FileChooser` backend (issue
/// 40, item 3): a sandboxed app's `FileChooser.OpenFile` reaches the frontend, which asks its
/// backend (`OpenFile(handle, app_id, parent_window, title, options) → (response, results)`) and
/// hands the `file://` uris of the results into the sandbox through the document portal.
///
/// SchemeBridge offers the document providers (`X-SchemeBridge-Provides`) beside "Files…", on
/// the sheet `PickDocument` shows, decided by the one pick decision (remembered, `[Routes]` for
/// `pick:TYPE` by the app's id, else the sheet); "Files…", and everything it does not offer
/// providers for, goes to the desktop's own FileChooser backend (``FileChooserDelegate``) by
/// calling that backend's `impl` object directly — never the public portal, which would call
/// SchemeBridge again. `SaveFile` and `SaveFiles` go there unchanged.
///
/// What the frontend passes (1.16.0 `src/file-chooser.c`, current main
/// `desktop-portal/file-chooser.c`): `options` `multiple` (b), `directory` (b), `filters`
/// (`a(sa(us))`: a name and patterns, 0 a glob, 1 a content type), `current_filter`, `choices`,
/// `accept_label`, `modal`, and from 1.17 `current_folder`; it has checked their types.
public struct FileChooserRequest: Sendable, Equatable {
    /// One pattern of a filter: `kind` 0 a glob (`*.png`), 1 a content type (`image/png`).
    public struct Pattern: Sendable, Equatable {
        public let kind: UInt32
        public let pattern: String
        public init(kind: UInt32, pattern: String) {
            self.kind = kind
            self.pattern = pattern
        }
    }

    /// The Flatpak (or Snap) app the frontend names; nil for a host app (`""`) or a name that
    /// is no caller identity.
    public let appID: CallerID?
    /// Whether the frontend named an app at all (not `""`): a sandboxed caller, identified or not.
    public let sandboxed: Bool
    /// The app's window the sheet is attached to (``PortalParentWindow``).
    public let parentWindow: String?
    /// Why the frontend's `parent_window` was dropped, when it was.
    public let parentWindowWarning: String?
    /// The dialog's title as the app gave it (cut to ``maximumTitleBytes``).
    public let title: String
    /// The app takes more than one file.
    public let multiple: Bool
    /// The app asks for a folder (providers offer documents: the delegate is asked).
    public let directory: Bool
    /// The types the app takes (``types(filters:current:database:)``); nil when its filters name
    /// none SchemeBridge can tell (only globs it has no type for): no provider is offered.
    public let subject: PickSubject?

    /// The longest title kept, in bytes.
    public static let maximumTitleBytes = 512

    /// `appID`: the app the frontend names; `filters` and `current_filter` as the adapter decoded
    /// them; `database` maps globs to types.
    public init(appID app: PortalAppName, parentWindow: String, title: String, multiple: Bool, directory: Bool,
                filters: [[Pattern]], currentFilter: [Pattern]?, database: ContentTypeDatabase?) {
        (self.appID, self.sandboxed) = (app.callerID, !app.isHost)
        (self.parentWindow, self.parentWindowWarning) = PortalParentWindow.normalized(parentWindow)
        var cut = title
        while cut.utf8.count > Self.maximumTitleBytes { cut.removeLast() }
        self.title = cut
        self.multiple = multiple
        self.directory = directory
        let types = Self.types(filters: filters, current: currentFilter, database: database)
        subject = types.flatMap { try? PickSubject(Array($0.prefix(PickSubject.maximumTypes))) }
    }

    /// The content types the app takes: those of `current` when it is given, else of every
    /// filter; a glob `*.EXT` counts as the type `database` gives a file named so (others are
    /// skipped). `[]` (`*/*`) when the app gave no filter at all; nil when it gave some but none
    /// names a type SchemeBridge can tell.
    public static func types(filters: [[Pattern]], current: [Pattern]?, database: ContentTypeDatabase?) -> [String]? {
        let patterns = current ?? filters.flatMap { $0 }
        if patterns.isEmpty { return [] }
        var out: [String] = []
        for p in patterns {
            var type: String?
            switch p.kind {
            case 1: type = PickType.validated(Registry.lowercasedASCII(p.pattern))
            case 0:
                if p.pattern.hasPrefix("*."), p.pattern.dropFirst(2).allSatisfy({ $0 != "*" && $0 != "?" && $0 != "[" && $0 != "/" }) {
                    type = database?.contentType(forName: "file" + p.pattern.dropFirst()).flatMap(PickType.validated)
                }
            default: break
            }
            if let type, !out.contains(type) { out.append(type) }
        }
        return out.isEmpty ? nil : out
    }

    /// The caller the pick is made for: the app the frontend names, as for `ChooseApplication`
    /// (``AppChooserRequest/caller(frontend:pid:)``).
    public func caller(frontend busName: String, pid: UInt32?) -> Caller {
        Caller(busName: busName, pid: pid, id: appID, sandboxed: sandboxed, sharedIdentity: !sandboxed)
    }

    /// Whether `handle` is a request SchemeBridge itself made through the public portal (its
    /// "Files…" for `PickDocument`, `Picking/PickPortal.swift`): the frontend names a request
    /// after its caller's unique name (`/org/freedesktop/portal/desktop/request/1_23/TOKEN`). It
    /// goes to the desktop's chooser, never to SchemeBridge's sheet again.
    public static func isOwnRequest(handle: String, uniqueName: String) -> Bool {
        guard uniqueName.hasPrefix(":") else { return false }
        let escaped = String(uniqueName.dropFirst()).map { $0 == "." ? "_" : $0 }
        return handle.hasPrefix("/org/freedesktop/portal/desktop/request/" + String(escaped) + "/")
    }

    /// The `file://` uris of the files placed for the app (paths as bytes), for the results.
    public static func uris(_ paths: [[UInt8]]) -> [String] {
        paths.map { PercentEncoding.fileURL($0) }
    }
}

/// Where an `OpenFile` goes (``Broker/route(_:caller:ownRequest:)``).
public enum FileChooserRoute: Sendable, Equatable {
    /// To the desktop's own chooser, unchanged; why (for the log).
    case delegate(String)
    /// SchemeBridge's pick: a provider decided, or the sheet asked (with "Files…" on it).
    case pick(PickSubject, HandlerDecision)
}

extension Broker {
    /// The route of an `OpenFile`: the desktop's chooser for SchemeBridge's own request, a
    /// folder, filters naming no type SchemeBridge can tell, "Files…" remembered or routed, or
    /// no provider of those types for this app (the sheet would hold "Files…" alone); else the
    /// pick decision (``decidePick(_:provider:caller:)``: remembered, `[Routes]`, the sheet). A
    /// decision that fails (a provider started too often) leaves the choice to the desktop's.
    public func route(_ request: FileChooserRequest, caller: Caller, ownRequest: Bool) -> FileChooserRoute {
        if ownRequest { return .delegate("SchemeBridge's own Files…") }
        if request.directory { return .delegate("a folder is asked for") }
        guard let subject = request.subject else { return .delegate("the app's filters name no content type") }
        let decision: HandlerDecision
        do { decision = try decidePick(subject, provider: nil, caller: caller) } catch {
            return .delegate(error.message)
        }
        switch decision {
        case .open(let id, _) where id == Self.filesCandidate.id || id == nil:
            return .delegate("Files… is \(caller.displayName)'s choice for \(subject.choiceKey)")
        case .ask(let question) where question.candidates.allSatisfy({ $0.id == Self.filesCandidate.id }):
            return .delegate("no provider offers \(subject.listed) to \(caller.displayName)")
        default:
            return .pick(subject, decision)
        }
    }
}

/// The desktop's own FileChooser backend, which "Files…" and `SaveFile` are handed to: the
/// first `.portal` file (by name) in the portal's directory that implements
/// `org.freedesktop.impl.portal.FileChooser`, is not SchemeBridge's, and whose `UseIn=` names one
/// of the session's desktops (in their order); else GTK's (`xdg-desktop-portal-gtk`), the one
/// Debian installs with the portal.
public enum FileChooserDelegate {
    /// The interface.
    public static let interface = "org.freedesktop.impl.portal.FileChooser"
    /// GTK's backend, when nothing else is found.
    public static let fallback = "org.freedesktop.impl.portal.desktop.gtk"

    /// The delegate's bus name for `desktops` (`XDG_CURRENT_DESKTOP`'s, ``PortalSelection/desktops(_:)``).
    public static func busName(portalsDirectory: String, desktops: [String]) -> String {
        var files: [(name: String, busName: String, useIn: [String])] = []
        for entry in ((try? FileSystem.list(portalsDirectory))?.entries ?? []).map(\.name).sorted() where entry.hasSuffix(".portal") {
            guard entry != PortalSelection.backend + ".portal",
                  let bytes = PortalSelection.readIfThere(XDGDirectories.join(portalsDirectory, entry)),
                  let group = (try? KeyFile(bytes: bytes, path: entry))?.group("portal"),
                  let name = group.string("DBusName"), AppID.isValid(name), !name.hasPrefix("io.github.schemebridge."),
                  group.stringList("Interfaces")?.contains(interface) == true else { continue }
            files.append((entry, name, group.stringList("UseIn") ?? []))
        }
        for d in desktops {
            if let f = files.first(where: { $0.useIn.contains(where: { $0.caseInsensitiveEquals(d) }) }) { return f.busName }
        }
        return fallback
    }
}

extension Broker {
    /// Places what `provider` handed over for a `FileChooser.OpenFile` pick (each descriptor
    /// with the name it gave) in the Inbox of the app the frontend named (``Inbox``: read-only
    /// copies, charged to the provider, under the Inbox caps), and returns their paths as bytes,
    /// in order; the frontend hands them into the sandbox through the document portal. Blocking
    /// (it reads the provider's descriptors): the adapter runs it on the descriptor threads.
    /// `hostInbox`: whose Inbox takes them for a host app (no app id): SchemeBridge's own.
    public func placeProvided<D: HeldDescriptor>(_ documents: [(D, String)], provider: DesktopID,
                                                 caller: Caller, hostInbox: DesktopID) throws(OpenFailure) -> [[UInt8]] {
        guard let inbox = self.documents?.inbox else { throw OpenFailure(.failed, "documents are not opened here") }
        let app = caller.desktopID ?? hostInbox
        let (sender, limits) = (InboxSender(CallerID.desktop(provider)), policy.current.inboxLimits)
        var placed: [[UInt8]] = []
        for (fd, name) in documents {
            placed.append(try fd.withFileDescriptor { (d: borrowing FileDescriptor) throws(OpenFailure) -> [UInt8] in
                try inbox.place(d, nameBytes: Array(name.utf8), desktopID: app, caller: sender, limits: limits)
            })
        }
        return placed
    }
}
