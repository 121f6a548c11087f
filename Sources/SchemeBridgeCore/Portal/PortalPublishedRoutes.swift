/// One app's permission in an entry of the permission store's `desktop-used-apps` table, as the
/// portal frontend keeps it (xdg-desktop-portal `src/open-uri.c`, 1.16.0 and main alike): per
/// content type (the entry's id), per caller app id, the strings `[HANDLER, COUNT, THRESHOLD]`
/// — the handler's desktop id without `.desktop`, how many times in a row it was chosen, and the
/// count from which the frontend launches it without asking (`3` unless written otherwise).
public enum PortalAppPermission: Sendable, Equatable {
    /// No entry for the type at all.
    case noEntry
    /// An entry without a permission for the app.
    case none
    /// The app's permission strings, as stored.
    case strings([String])

    /// The handler the frontend would launch for the app without asking (its own reading,
    /// `get_latest_choice_info` then `count >= threshold`): the first string when the count
    /// reaches the threshold (a blank or missing threshold is 3; `G_MAXINT` means always ask).
    public var appliedHandler: String? {
        guard case .strings(let s) = self, s.count >= 2 else { return nil }
        let count = Int32(s[1].trimmingLeadingDigits) ?? 0
        var threshold: Int32 = PortalRoutePublishing.threshold
        if s.count >= 3, !s[2].allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" }) { threshold = Int32(s[2].trimmingLeadingDigits) ?? 0 }
        guard threshold != Int32.max, count >= threshold else { return nil }
        return s[0]
    }

    /// The handler named, whatever the count (nil: no permission).
    public var handler: String? {
        if case .strings(let s) = self { return s.first }
        return nil
    }
}

extension String {
    /// The leading decimal digits (with a sign), as C's `atoi` reads them; "0" when none.
    fileprivate var trimmingLeadingDigits: String {
        var chars = Substring(self).drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" })
        var out = ""
        if let first = chars.first, first == "-" || first == "+" { out.append(first); chars = chars.dropFirst() }
        out += chars.prefix(while: { $0.isASCII && $0.isNumber })
        return out == "" || out == "-" || out == "+" ? "0" : out
    }
}

/// A `[Routes]` line the portal applies itself (issue 40): written as the caller's permission in
/// the type's `desktop-used-apps` entry, as the portal's own "chosen three times"
/// (``permission``), so the frontend launches the handler without asking any backend.
public struct PortalPublishedRoute: Sendable, Equatable, Hashable {
    /// The content type: `x-scheme-handler/SCHEME` or a MIME type.
    public let type: String
    /// The caller's app id (a Flatpak id), as the permission store keys its permissions: the
    /// store's own key, kept byte for byte as the `[Routes]` line or the record spells it.
    public let app: String
    /// The handler (the permission store names it ``storedHandler``).
    public let handler: DesktopID

    public init(type: String, app: String, handler: DesktopID) {
        (self.type, self.app, self.handler) = (type, app, handler)
    }

    /// The route whose handler the permission store (and the integration record) names
    /// `storedHandler`: a desktop id without `.desktop`, the portal's own naming. The inverse of
    /// ``storedHandler``, byte for byte.
    public init(type: String, app: String, storedHandler: String) {
        self.init(type: type, app: app, handler: DesktopID(fileName: storedHandler + ".desktop"))
    }

    /// The handler as the permission store names it: its app id (the desktop id without `.desktop`).
    public var storedHandler: String { handler.appID }

    /// The permission strings written: `[HANDLER, "3", "3"]` (``storedHandler``).
    public var permission: [String] {
        [storedHandler, String(PortalRoutePublishing.threshold), String(PortalRoutePublishing.threshold)]
    }
}

/// Which routes the portal can apply itself, and which types must stay always-ask (issue 40;
/// docs/GUIDE.md, "Flatpak apps"). The portal reads `desktop-used-apps` per type and per caller
/// app id and launches the handler chosen ``threshold`` times without asking a backend — unless
/// the type's data says always-ask, which is per type, for every app. So a route is published
/// only when the portal would launch exactly what SchemeBridge would, and SchemeBridge adds
/// nothing the user sees:
/// - the type is not one the portal opens with the default anyway (`should_use_default_app`:
///   the schemes `http`, `https`, `ftp`, `mailto`, `webcal`, `calendar`, and `inode/directory`);
/// - every `[Routes]` line for the type names one app id (no `*` or `?`: the store is keyed by
///   exact ids);
/// - each line's handler (the caller's remembered choice first, as SchemeBridge decides) is an
///   installed entry that handles the type, admits the caller (`X-SchemeBridge-AllowedCallers`),
///   does not route back to SchemeBridge, and shows no launch image for the scheme (only
///   SchemeBridge's own launch shows it).
/// A type whose routes are all published is not marked always-ask; every other type
/// `integrate --portal` marks (``PortalIntegration/alwaysAskTypes(routes:choices:routedSchemes:)``)
/// stays so.
public enum PortalRoutePublishing {
    /// The portal's `DEFAULT_THRESHOLD`: chosen this many times, an app is launched without asking.
    public static let threshold: Int32 = 3

    /// The schemes `should_use_default_app` opens with their default when there is one.
    public static let defaultAppSchemes: Set<String> = ["http", "https", "ftp", "mailto", "webcal", "calendar"]

    /// What `integrate --portal` writes.
    public struct Plan: Sendable, Equatable {
        /// The routes the portal applies itself, sorted by type then app.
        public var published: [PortalPublishedRoute]
        /// The types marked always-ask, sorted.
        public var alwaysAsk: [String]
    }

    /// The URL scheme a content type stands for: `S` for `x-scheme-handler/S`, `file` for a MIME type.
    public static func scheme(of type: String) -> String {
        type.hasPrefix("x-scheme-handler/") ? String(type.dropFirst("x-scheme-handler/".count)) : "file"
    }

    /// Whether the portal opens `type` with its default, before any remembered app.
    public static func portalUsesDefault(_ type: String) -> Bool {
        defaultAppSchemes.contains(scheme(of: type)) || type == "inode/directory"
    }

    /// The plan for these routes and remembered choices. `entry` finds an installed entry by
    /// desktop id; `showsLaunchImage` says whether an entry shows a launch image for a scheme
    /// (false for every entry when launch images are off).
    public static func plan(routes: [Route], choices: [Choice], routedSchemes: [String],
                            entry: (DesktopID) -> DesktopEntry?, showsLaunchImage: (DesktopEntry, String) -> Bool) -> Plan {
        var byType: [String: [Route]] = [:]
        var order: [String] = []
        for route in routes {
            guard let s = ChoiceSubject.normalized(route.subject), !ChoiceSubject.isPick(s) else { continue }
            let type = ChoiceSubject.isContentType(s) ? s : "x-scheme-handler/" + s
            if byType[type] == nil { order.append(type) }
            byType[type, default: []].append(route)
        }
        var published: [PortalPublishedRoute] = []
        var publishedTypes = Set<String>()
        for type in order {
            if let typeRoutes = byType[type], let routes = publishable(type: type, routes: typeRoutes, choices: choices, entry: entry, showsLaunchImage: showsLaunchImage) {
                published += routes
                publishedTypes.insert(type)
            }
        }
        let asked = PortalIntegration.alwaysAskTypes(routes: routes, choices: choices, routedSchemes: routedSchemes).filter { !publishedTypes.contains($0) }
        return Plan(published: published.sorted { ($0.type, $0.app) < ($1.type, $1.app) }, alwaysAsk: asked)
    }

    /// The type's routes as the portal would apply them, or nil when one of them cannot be.
    static func publishable(type: String, routes: [Route], choices: [Choice],
                            entry: (DesktopID) -> DesktopEntry?, showsLaunchImage: (DesktopEntry, String) -> Bool) -> [PortalPublishedRoute]? {
        guard !portalUsesDefault(type) else { return nil }
        let scheme = Self.scheme(of: type)
        var out: [PortalPublishedRoute] = []
        var seen = Set<String>()
        for route in routes {
            let app = route.callerPattern
            guard !app.isEmpty, !app.contains("*"), !app.contains("?") else { return nil }
            // The first line for an app wins; a later one for the same app never decides.
            guard seen.insert(app).inserted else { continue }
            let remembered = choices.first { $0.caller.text == app && ChoiceSubject.normalized($0.subject) == ChoiceSubject.normalized(route.subject) }
            let desktopID = (remembered?.desktopID ?? route.desktopID).desktopID
            guard desktopID.fileName.hasSuffix(".desktop"), let e = entry(desktopID), Policy.allows(caller: CallerID(app), entry: e), !e.runsSchemeBridgeOpen,
                  scheme == "file" ? e.mimeTypes.contains(type) : e.schemes.contains(scheme),
                  !showsLaunchImage(e, scheme) else { return nil }
            out.append(PortalPublishedRoute(type: type, app: app, handler: desktopID))
        }
        return out
    }
}
