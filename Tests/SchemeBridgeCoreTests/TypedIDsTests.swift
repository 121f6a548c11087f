import Foundation
import Testing
@testable import SchemeBridgeCore

/// Ids at Core's API are typed (issue 36, item 3): a handler is a ``DesktopID``, a caller a
/// ``CallerID``, the app a portal frontend names a ``PortalAppName``. Where the type changes what
/// two spellings mean (`foo` and `foo.desktop` are one desktop id; `org.example.App` and
/// `org.example.App.desktop` one caller), the values here say so; the messages and the stored
/// bytes stay as they were.
@Suite struct TypedIDsTests {
    @Test func routeErrorsNameTheHandlerByItsDesktopID() {
        // One handler, however it was spelled.
        #expect(RouteError.invalidHandler(desktopID: "foo", scheme: "todo") == .invalidHandler(desktopID: "foo.desktop", scheme: "todo"))
        #expect(RouteError.noTerminal(desktopID: "foo") == .noTerminal(desktopID: DesktopID(fileName: "foo.desktop")))
        #expect(RouteError.reservedScheme(scheme: "bank", desktopID: "foo") == .reservedScheme(scheme: "bank", desktopID: "foo.desktop"))
        // The messages (D-Bus error texts) name the desktop file as before.
        #expect(RouteError.invalidHandler(desktopID: "foo", scheme: "todo").description
            == "'foo.desktop' is not an installed application that handles 'todo' (see HandlersForScheme)")
        #expect(RouteError.noTerminal(desktopID: "foo").description.hasPrefix("'foo.desktop' runs in a terminal (Terminal=true) but no terminal emulator is installed (looked for "))
        #expect(RouteError.reservedScheme(scheme: "bank", desktopID: "foo").description.hasPrefix("'bank' is a reserved scheme: 'foo.desktop' cannot take it over by listing it; "))
        #expect(RouteError.reservedScheme(scheme: "bank", desktopID: nil).description.hasPrefix("'bank' is a reserved scheme: an application in ~/.local/share/applications cannot"))
        // An id a caller sent is quoted as sent, not completed.
        #expect(SetDefaultError.invalidHandler(desktopID: DesktopID(fileName: "../evil"), scheme: "todo", reason: "not a valid desktop ID").description
            == "'../evil' cannot be the default for 'todo': not a valid desktop ID")
        #expect(SetDefaultError.invalidHandler(desktopID: "a", scheme: "x", reason: "r") == .invalidHandler(desktopID: "a.desktop", scheme: "x", reason: "r"))
    }

    @Test func launchSlotsCountACallerByItsIdentity() throws {
        let slots = LaunchSlots()
        let app: CallerID = "org.example.App", sameApp: CallerID = "org.example.App.desktop"
        do {
            let first = try slots.take(caller: app, limit: 8, perCaller: 1)
            // The same app spelled with its desktop file's suffix is the same caller: refused.
            #expect(throws: LaunchSlots.Refusal.caller(limit: 1)) { try slots.take(caller: sameApp, limit: 8, perCaller: 1) }
            #expect(slots.inFlight(caller: sameApp) == 1)
            // Unidentified callers are counted together, apart from every identified one.
            let unidentified = try slots.take(caller: nil, limit: 8, perCaller: 1)
            #expect(throws: LaunchSlots.Refusal.caller(limit: 1)) { try slots.take(caller: nil, limit: 8, perCaller: 1) }
            let other = try slots.take(caller: "/usr/bin/tool", limit: 8, perCaller: 1)
            #expect(slots.inFlight == 3)
            #expect(throws: LaunchSlots.Refusal.total(limit: 3)) { try slots.take(caller: "snap.firefox", limit: 3, perCaller: 1) }
            withExtendedLifetime((first, unidentified, other)) {}
        }
        // Given back when released.
        #expect(slots.inFlight == 0 && slots.inFlight(caller: app) == 0)
        _ = try slots.take(caller: sameApp, limit: 8, perCaller: 1)
    }

    @Test func theLaunchRateIsCountedPerCallerIdentity() {
        let clock = ManualClock()
        let limiter = LaunchRateLimiter(rate: 1, burst: 2, clock: clock.read)
        // The same app spelled with its desktop file's suffix spends the same bucket.
        #expect(limiter.allow("org.example.App") && limiter.allow("org.example.App.desktop"))
        #expect(!limiter.allow("org.example.App"), "a third launch within the burst of 2")
        #expect(limiter.bucketCount == 1)
        #expect(limiter.allow("org.example.Other"), "another caller has a bucket of its own")
        // Unidentified callers share one bucket, at the shared limits...
        let limits = LaunchRateLimiter.Limits(rate: 1, burst: 2), shared = LaunchRateLimiter.Limits(rate: 1, burst: 1)
        #expect(limiter.allow(nil, limits, shared: shared))
        #expect(!limiter.allow(nil, limits, shared: shared))
        // ...and a new caller past the cap takes from that same bucket.
        let capped = LaunchRateLimiter(rate: 1, burst: 2, maximumBuckets: 2, clock: clock.read)
        #expect(capped.allow("org.example.A", limits, shared: shared))
        #expect(capped.allow("org.example.B", limits, shared: shared), "past the cap: the shared bucket's one token")
        #expect(!capped.allow(nil, limits, shared: shared), "the new caller past the cap spent the unidentified callers' token")
        clock.advance(1)
        #expect(capped.allow(nil, limits, shared: shared))
    }

    @Test func aPublishedRouteNamesItsHandlerByDesktopIDAndStoresItAsThePortalDoes() {
        let route = PortalPublishedRoute(type: "x-scheme-handler/todo", app: "org.test.Notes", handler: "org.test.Todo.desktop")
        #expect(route == PortalPublishedRoute(type: "x-scheme-handler/todo", app: "org.test.Notes", handler: "org.test.Todo"))
        #expect(route.storedHandler == "org.test.Todo" && route.permission == ["org.test.Todo", "3", "3"])
        #expect(route == PortalPublishedRoute(type: "x-scheme-handler/todo", app: "org.test.Notes", storedHandler: "org.test.Todo"))
        // The store's bytes come back as they were, even a name the portal would not write.
        let odd = PortalPublishedRoute(type: "x-scheme-handler/todo", app: "org.test.Notes", storedHandler: "odd.desktop")
        #expect(odd.storedHandler == "odd.desktop" && odd != route && odd.handler.fileName == "odd.desktop.desktop")
        // The app stays the permission store's key, as written (not read as a caller identity).
        #expect(PortalPublishedRoute(type: "t/x", app: "org.test.Notes.desktop", handler: "a").app == "org.test.Notes.desktop")
    }

    @Test func theAppAPortalFrontendNamesIsACallerOrAHostApp() {
        #expect(PortalAppName("").isHost && PortalAppName("").callerID == nil)
        #expect(PortalAppName("org.test.App.desktop").callerID == PortalAppName("org.test.App").callerID)
        #expect(PortalAppName("org.test.App.desktop").callerID?.text == "org.test.App" && !PortalAppName("org.test.App").isHost)
        // Named, but no caller identity: sandboxed and unidentified.
        #expect(PortalAppName("bin/tool").callerID == nil && !PortalAppName("bin/tool").isHost)
        let files = FileChooserRequest(appID: "org.test.App.desktop", parentWindow: "", title: "", multiple: false, directory: false,
                                       filters: [], currentFilter: nil, database: nil)
        #expect(files.appID == "org.test.App" && files.sandboxed)
        // ChooseApplication still refuses what is not an app id, quoting it as sent.
        #expect(throws: OpenFailure(.invalidArgument, "'/usr/bin/tool' is not an app id")) {
            try AppChooserRequest(appID: "/usr/bin/tool", choices: [], options: ["content_type": "x-scheme-handler/todo", "uri": "todo:x"])
        }
    }

    // MARK: the guard

    static let core = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SchemeBridgeCore")

    /// The parameters (of `public` functions and initializers, and enum cases' payloads) named
    /// like a desktop or app id (`desktopID`, `appID`, `handlerAppID`...) whose type is `String`,
    /// `String?`, `[String]` or `Set<String>`, as `file: declaration(parameter)`. A reading of
    /// the source text: a declaration's parameters are what stands between its balanced
    /// parentheses.
    static func untypedIDParameters(in source: String, file: String) -> [String] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.drop(while: { $0 == " " }).hasPrefix("//") }
        let text = Array(lines.joined(separator: "\n").utf8)
        let starts = try! NSRegularExpression(pattern: #"(public\s+(?:[a-z]+\s+)*(?:func\s+[^\s(<]+|init\??)|\bcase\s+[A-Za-z_]\w*)\s*(?:<[^>]*>)?\("#)
        let string = String(decoding: text, as: UTF8.self)
        var found: [String] = []
        for match in starts.matches(in: string, range: NSRange(string.startIndex..., in: string)) {
            guard let range = Range(match.range, in: string) else { continue }
            let head = string[range].split(whereSeparator: { $0 == "\n" || $0 == " " }).joined(separator: " ")
            // The parameter list: up to the parenthesis that closes the one the match ends with.
            var depth = 1, params: [String] = [], current = "", previous: Character = " "
            for c in string[range.upperBound...] {
                if "([<".contains(c) { depth += 1 } else if ")]".contains(c) || (c == ">" && previous != "-") { depth -= 1 }
                previous = c
                if depth == 0 { break }
                if c == ",", depth == 1 { params.append(current); current = "" } else { current.append(c) }
            }
            params.append(current)
            for p in params {
                let parts = p.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let names = parts[0].split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
                let type = parts[1].split(separator: "=", maxSplits: 1)[0].trimmingCharacters(in: .whitespacesAndNewlines)
                guard ["String", "String?", "[String]", "Set<String>"].contains(type),
                      names.contains(where: { $0.lowercased().contains("desktopid") || $0.lowercased().contains("appid") }) else { continue }
                found.append("\(file): \(head)\(p.trimmingCharacters(in: .whitespacesAndNewlines)))")
            }
        }
        return found
    }

    @Test func coreTakesNoDesktopOrAppIDAsAString() throws {
        // Text where text is what comes in, each for its reason.
        let allowed = [
            // The conversions from text themselves.
            "DesktopID.swift: public init(_ appIDOrFileName: String)",
            "DesktopID.swift: public static func fileName(appID id: String)",
            // A D-Bus call's arguments, decoded here (into AppIDPattern; ids echoed back as the keys of the reply).
            "PasteboardCalls.swift: public func changeGrants(appIDs names: [String])",
            "Broker.swift: public func displayNames(_ desktopIDs: [String])",
            // Compared with a systemd scope's app id as its name spells it (CallerIdentity.launcherAppID), text to text.
            "CallerAncestry.swift: public init(ownAppIDs: Set<String>)",
            "CallerCache.swift: public init(ownAppIDs: Set<String>)",
        ]
        var found: [String] = []
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.core.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "Core's sources were not found at \(Self.core.path)")
        for file in files.sorted() {
            let source = try String(contentsOf: Self.core.appendingPathComponent(file), encoding: .utf8)
            found += Self.untypedIDParameters(in: source, file: (file as NSString).lastPathComponent)
        }
        #expect(found.filter { !allowed.contains($0) } == [], "parameters that should be DesktopID, AppID or CallerID")
    }

    /// The check itself: what it must find, and what it must not.
    @Test func theGuardFindsAnUntypedID() {
        let source = """
            public enum E { case invalidHandler(desktopID: String, scheme: String); case ok(desktopID: DesktopID) }
            public func f(_ a: Int,
                          handlerAppID id: String? = nil) {}
            // public func commented(desktopID: String)
            func internalOne(appID: String) {}
            public init(ids desktopIDs: [String], names: [String: String]) {}
            """
        #expect(Self.untypedIDParameters(in: source, file: "X.swift") == [
            "X.swift: case invalidHandler(desktopID: String)",
            "X.swift: public func f(handlerAppID id: String? = nil)",
            "X.swift: public init(ids desktopIDs: [String])",
        ])
    }
}
