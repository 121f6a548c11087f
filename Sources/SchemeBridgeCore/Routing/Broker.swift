import LinuxSystem
/// The rules of the service, testable without a bus: it takes an open request (URL, options,
/// caller) and says whether it is admitted and what to launch with which context; it answers
/// queries under the query-privacy rule and decides whether a default may be set. The D-Bus
/// adapter only decodes, identifies the caller, calls this, and launches what it returns.
public final class Broker: Sendable {
    public let registry: Registry
    public let router: URLRouter
    public let policy: PolicyStore
    public let launchImages: LaunchImageIndex
    private let rateLimiter: LaunchRateLimiter
    private let setDefaultLimiter: LaunchRateLimiter
    private let slots = LaunchSlots()
    /// x-callback URLs handed out, pinned to the entries of the apps that asked.
    public let callbackRoutes = CallbackRoutes()
    /// Activation tokens handed to started handlers: never handed to another launch.
    public let usedActivationTokens = UsedActivationTokens()
    /// Writes defaults on a thread of its own, never on the shared task threads.
    private let defaultsWriter = SerialWriter<Result<Void, OpenFailure>>(name: "defaults")
    /// The choices callers' users made with "always" (see `Broker+Choosing.swift`).
    public let choices: ChoiceStore
    /// Content types, handlers by type and the Inboxes; nil when documents are not opened.
    public let documents: Documents?
    /// Verified app links (`Broker+LinkDeciding.swift`); nil when https links are only the scheme's.
    public let appLinks: AppLinks?

    /// - Parameters:
    ///   - ownDesktopIDs: SchemeBridge's own entries, never handlers.
    ///   - clock: monotonic seconds for the rate limits (tests pass their own).
    ///   - choices: remembered choices (in memory only when not given).
    ///   - documents: what opens documents (none opened when not given).
    ///   - appLinks: which apps hold https links (none when not given).
    public init(registry: Registry, policy: PolicyStore, ownDesktopIDs: Set<DesktopID>,
                launchImages: LaunchImageIndex = LaunchImageIndex(),
                clock: @escaping @Sendable () -> Double = LaunchRateLimiter.monotonicSeconds,
                choices: ChoiceStore = ChoiceStore(path: nil), documents: Documents? = nil, appLinks: AppLinks? = nil) {
        self.choices = choices
        self.documents = documents
        self.appLinks = appLinks
        self.rateLimiter = LaunchRateLimiter(clock: clock)
        self.setDefaultLimiter = LaunchRateLimiter(clock: clock)
        self.registry = registry
        self.policy = policy
        self.launchImages = launchImages
        self.router = URLRouter(registry: registry, ownDesktopIDs: ownDesktopIDs, policyStore: policy)
    }

    /// Launches in flight now.
    public var launchesInFlight: Int { slots.inFlight }

    /// The rate buckets kept now (for tests and figures).
    public var rateBuckets: Int { rateLimiter.bucketCount }

    /// The key a caller's launches are counted under: its identity (nil: every unidentified
    /// caller shares one bucket — a caller that disconnects before it is identified must not get
    /// a fresh bucket with each connection).
    static func limitKey(_ caller: Caller) -> CallerID? { caller.id }

    // MARK: queries

    /// `url`, validated.
    public func validate(_ url: String) throws(OpenFailure) -> SchemeURL {
        do { return try router.validate(url) } catch { throw OpenFailure(error) }
    }

    /// `scheme`, validated and lower-cased.
    public func validScheme(_ scheme: String) throws(OpenFailure) -> String {
        do { return try Scheme(scheme).name } catch { throw OpenFailure(.invalidArgument, error.description) }
    }

    /// Whether query privacy is on (`[Policy] QueryPrivacy=true`).
    public var queryPrivacy: Bool { policy.current.queryPrivacy }

    /// What `caller` may learn about installed schemes (nil: a caller not identified yet).
    /// Query privacy off: everything. On: only the schemes the caller's own entry lists in
    /// `X-SchemeBridge-QueriesSchemes=` (like iOS's `LSApplicationQueriesSchemes`) — nothing for
    /// a caller that is unidentified or has no installed entry. Every query method answers
    /// within this scope, as if other schemes had no handler. A sandboxed caller is always
    /// under query privacy (``SandboxedCallerRule``).
    public func queryScope(for caller: Caller?) -> QueryScope {
        guard queryPrivacy || caller?.sandboxed == true else { return .all }
        guard let appID = caller?.appID,
              let entry = registry.entry(id: DesktopID(appID)) else { return .only([]) }
        let declared = (entry.extensionKeys["X-SchemeBridge-QueriesSchemes"] ?? "").split(separator: ";")
        return .only(Set(declared.compactMap { (try? Scheme(String($0)))?.name }))
    }

    /// Whether `url` can be opened, as `scope` may learn it; a malformed URL is an error.
    public func canOpen(_ url: String, scope: QueryScope) throws(OpenFailure) -> Bool {
        let u = try validate(url)
        return scope.allows(u.scheme.name) && router.effectiveDefault(forScheme: u.scheme.name) != nil
    }

    /// The eligible handlers of `scheme`, default first, as `scope` may learn them.
    public func handlers(forScheme scheme: String, scope: QueryScope = .all) throws(OpenFailure) -> [DesktopID] {
        let s = try validScheme(scheme)
        return scope.allows(s) ? router.handlers(forScheme: s) : []
    }

    /// The applications that declare `scheme` but are skipped, with why, as `scope` may learn it.
    public func skippedHandlers(forScheme scheme: String, scope: QueryScope = .all) throws(OpenFailure) -> [SkippedHandler] {
        let s = try validScheme(scheme)
        return scope.allows(s) ? router.skippedHandlers(forScheme: s) : []
    }

    /// The display names (`Name=`, in the service's locale) of those of `desktopIDs` that are
    /// installed applications, as `scope` may learn them: under query privacy, only entries
    /// declaring a scheme in scope. At most 1,024 ids a call.
    public func displayNames(_ desktopIDs: [String], scope: QueryScope = .all) throws(OpenFailure) -> [String: String] {
        guard desktopIDs.count <= 1024 else { throw OpenFailure(.invalidArgument, "at most 1024 desktop ids at once") }
        var names: [String: String] = [:]
        for id in desktopIDs {
            guard let e = registry.entry(id: DesktopID(fileName: id)), let name = e.name else { continue }
            if case .only(let schemes) = scope, !e.schemes.contains(where: schemes.contains) { continue }
            names[id] = name
        }
        return names
    }

    /// The handler that opens `scheme` (nil when none), as `scope` may learn it.
    public func defaultHandler(forScheme scheme: String, scope: QueryScope = .all) throws(OpenFailure) -> DesktopID? {
        let s = try validScheme(scheme)
        return scope.allows(s) ? router.effectiveDefault(forScheme: s)?.id : nil
    }

    /// The launch image `url` would show at `scale` ("" when none, images are off, or outside `scope`).
    public func launchImage(for url: String, scale: Int, scope: QueryScope = .all) throws(OpenFailure) -> String {
        let u = try validate(url)
        guard policy.current.launchImages, scope.allows(u.scheme.name),
              let entry = router.effectiveDefault(forScheme: u.scheme.name) else { return "" }
        return launchImages.image(for: entry, scheme: u.scheme.name, scale: scale) ?? ""
    }

    /// Every scheme with a handler, as `scope` may learn them.
    public func schemes(scope: QueryScope = .all) -> [String] {
        switch scope {
        case .all: return registry.schemes
        case .only(let allowed): return allowed.isEmpty ? [] : registry.schemes.filter { allowed.contains($0) }
        }
    }

    // MARK: defaults

    /// Checks that `desktopID` may become the default of `scheme` through the service (not
    /// SchemeBridge itself, not a takeover of a reserved scheme); returns the scheme's name.
    public func checkSetDefault(scheme: String, desktopID id: DesktopID) throws(OpenFailure) -> String {
        let desktopID = id.fileName
        let s = try validScheme(scheme)
        guard let e = registry.entry(id: id) else { return s }
        if router.routesBackToUs(e) {
            throw OpenFailure(.invalidHandler, "'\(desktopID)' is SchemeBridge itself and cannot handle '\(s)'")
        }
        if router.isHijack(e, scheme: s) || Policy.isNeverRouted(s) {
            throw OpenFailure(.reservedScheme, RouteError.reservedScheme(scheme: s, desktopID: id).description
                + " (SetDefaultHandler over D-Bus cannot do that, so no program can hijack it this way)")
        }
        return s
    }

    /// Makes `desktopID` the user's default for `scheme` for `caller`: checked
    /// (``checkSetDefault(scheme:desktopID:)``), limited per caller (`MaxSetDefaultRate`,
    /// `SetDefaultBurst`; unidentified callers share one bucket), then written on the defaults
    /// writer's own thread — the caller's task waits without holding a shared thread, and
    /// identical requests queued together are written once.
    public func setDefault(scheme: String, desktopID: DesktopID, caller: Caller) async throws(OpenFailure) {
        let s = try checkSetDefault(scheme: scheme, desktopID: desktopID)
        let config = policy.current
        let limits = LaunchRateLimiter.Limits(rate: config.maxSetDefaultRate, burst: config.setDefaultBurst)
        guard setDefaultLimiter.allow(Self.limitKey(caller), limits, shared: limits) else {
            throw OpenFailure(.rateLimited, "too many default changes from \(caller.displayName); slow down and try again in a moment")
        }
        let registry = self.registry
        let result: Result<Void, OpenFailure> = await defaultsWriter.run(key: s + "\u{0}" + desktopID.fileName) {
            Result { () throws(OpenFailure) in try Self.write(registry, scheme: s, desktopID: desktopID) }
        }
        try result.get()
    }

    /// Makes `desktopID` the user's default for content type `type`: the same limit and writer
    /// thread as ``setDefault(scheme:desktopID:caller:)``.
    public func setDefault(type: String, desktopID: DesktopID, caller: Caller) async throws(OpenFailure) {
        let config = policy.current
        let limits = LaunchRateLimiter.Limits(rate: config.maxSetDefaultRate, burst: config.setDefaultBurst)
        guard setDefaultLimiter.allow(Self.limitKey(caller), limits, shared: limits) else {
            throw OpenFailure(.rateLimited, "too many default changes from \(caller.displayName); slow down and try again in a moment")
        }
        let registry = self.registry
        let result: Result<Void, OpenFailure> = await defaultsWriter.run(key: "type\u{0}" + type + "\u{0}" + desktopID.fileName) {
            Result { () throws(OpenFailure) in try Self.written { () throws(SetDefaultError) in _ = try registry.setDefault(type: type, desktopID: desktopID) } }
        }
        try result.get()
    }

    /// Makes `desktopID` the user's default for `scheme` after ``checkSetDefault(scheme:desktopID:)``,
    /// on the calling thread, without a rate limit (in-process callers).
    public func setDefault(scheme: String, desktopID: DesktopID) throws(OpenFailure) {
        let s = try checkSetDefault(scheme: scheme, desktopID: desktopID)
        try Self.write(registry, scheme: s, desktopID: desktopID)
    }

    private static func write(_ registry: Registry, scheme s: String, desktopID: DesktopID) throws(OpenFailure) {
        // `s` is `validScheme`'s answer: valid and lower-cased, so not parsed again.
        try written { () throws(SetDefaultError) in _ = try registry.setDefault(scheme: Scheme(validatedLowercase: s), desktopID: desktopID) }
    }

    /// Runs a registry write, turning its failure into the broker's.
    private static func written(_ body: () throws(SetDefaultError) -> Void) throws(OpenFailure) {
        do {
            try body()
        } catch {
            switch error {
            case .invalidScheme(let e): throw OpenFailure(.invalidArgument, e.description)
            case .invalidHandler: throw OpenFailure(.invalidHandler, error.description)
            case .writeFailed: throw OpenFailure(.failed, error.description)
            }
        }
    }

    // MARK: opening

    /// Decides `request`: the handler and how to start it, or why not. In order: the handler (as
    /// ``decide(_:requested:ask:caller:)`` would, unless the request was decided), the URL and
    /// handler (``URLRouter``), the handler's allowed callers, the caller's rate, the launches in
    /// flight. An admitted request holds a launch slot until the returned value goes away.
    /// - Parameters:
    ///   - sessionScale: the display scale when the request names none.
    ///   - splashAvailable: whether a launch image would be shown as a splash, which needs a
    ///     startup id for the handler (one is made when the caller gave no token).
    ///   - callback: the entry a callback route pins the URL to, when the caller is that route's
    ///     handler (``callbackEntry(for:handlerNamed:isHandler:)``).
    public func admit(_ request: OpenRequest, searchPath: [String], sessionScale: Int, splashAvailable: Bool,
                      callbackLifetime: Duration = .seconds(3600), callback: String? = nil) throws(OpenFailure) -> Admission {
        let config = policy.current  // one snapshot for the request
        let caller = request.caller
        var url = request.url
        var handler = request.handler
        var callbacks: (urls: [String], entry: String)? = nil
        if let callback {
            // A callback handed out earlier comes back from its handler: to the app that asked,
            // whoever else declares its scheme.
            handler = DesktopID(fileName: callback)
        } else if config.callbacks {
            let urls = XCallback.callbacks(in: url.string)
            if !urls.isEmpty {
                let entry = try callbackOwner(urls, caller: caller)
                do { url = try SchemeURL(XCallback.settingSource(caller.appID ?? "", in: url.string)) } catch { throw OpenFailure(RouteError.invalidURL(error)) }
                callbacks = (urls, entry)
            }
        }
        // Precedence (``decide(_:requested:ask:caller:)``): the handler asked for (or a pinned
        // callback) > remembered > [Routes] > an app that holds the link > defaults. Decided once:
        // here only when the caller did not.
        if handler == nil, !request.decided, decidesAtAdmission(url, caller: caller) {
            handler = decide(url: url, requested: nil, ask: false, caller: caller).handler?.desktopID
        }
        let plan = try launchPlan(url, handler: handler, searchPath: searchPath)
        var admission = try admit(plan, request.launch, sessionScale: sessionScale, splashAvailable: splashAvailable, config: config)
        if let callbacks { admission.callbackGroup = callbackRoutes.pin(callbacks.urls, to: callbacks.entry, lifetime: callbackLifetime) }
        return admission
    }

    /// Decides a document's opening: `url` (its copy in `entry`'s Inbox) with `entry`, the
    /// handler chosen for its type; the same checks as a URL's (allowed callers, rate, launches
    /// in flight) and the same launch image.
    public func admit(document url: SchemeURL, entry: DesktopEntry, request: OpenRequest, searchPath: [String], sessionScale: Int,
                      splashAvailable: Bool, inDocumentPortal: Bool = false) throws(OpenFailure) -> Admission {
        let plan: LaunchPlan
        do { plan = try router.plan(document: url, entry: entry, searchPath: searchPath, inDocumentPortal: inDocumentPortal) } catch { throw OpenFailure(error) }
        return try admit(plan, request.launch, sessionScale: sessionScale, splashAvailable: splashAvailable, config: policy.current)
    }

    /// Counts a launch for `caller` against `MaxLaunchRate`/`LaunchBurst` (unidentified callers
    /// share `UnidentifiedLaunchRate`/`UnidentifiedLaunchBurst`): `RateLimited` past them. Every
    /// launch passes it: an open's in admission, a pick's provider before it starts.
    public func chargeLaunch(_ caller: Caller, config: PolicyConfig? = nil) throws(OpenFailure) {
        let config = config ?? policy.current
        let key = Self.limitKey(caller)
        guard rateLimiter.allow(key, .init(rate: config.maxLaunchRate, burst: config.launchBurst),
                                shared: .init(rate: config.unidentifiedLaunchRate, burst: config.unidentifiedLaunchBurst)) else {
            throw OpenFailure(.rateLimited, key == nil
                ? "too many launches from unidentified callers (they share one limit); slow down and try again in a moment"
                : "too many launches from \(caller.displayName); slow down and try again in a moment")
        }
    }

    /// The checks every launch passes once its plan is made: allowed callers, rate, slots;
    /// then the launch image and the handler's context.
    func admit(_ plan: LaunchPlan, _ request: LaunchRequest, sessionScale: Int, splashAvailable: Bool, config: PolicyConfig) throws(OpenFailure) -> Admission {
        let caller = request.caller
        guard Policy.allows(caller: caller.id, entry: plan.entry) else {
            throw OpenFailure(.accessDenied, "\(plan.entry.name ?? plan.entry.idText) (\(plan.entry.id)) accepts URLs only from "
                + "\(plan.entry.extensionKeys["X-SchemeBridge-AllowedCallers"] ?? "")" + "; the caller is \(caller.appID ?? "unidentified")")
        }
        try chargeLaunch(caller, config: config)
        let slot: LaunchSlot
        do {
            slot = try slots.take(caller: caller.id, limit: config.maxConcurrentLaunches, perCaller: config.maxLaunchesPerCaller)
        } catch {
            switch error {
            case .total(let limit):
                throw OpenFailure(.rateLimited, "\(limit) launches are already in progress; try again in a moment")
            case .caller(let limit):
                throw OpenFailure(.rateLimited, "\(caller.displayName) already has \(limit) launches in progress (MaxLaunchesPerCaller); try again in a moment")
            }
        }
        let image = request.launchImage && config.launchImages
            ? plan.url.flatMap { launchImages.image(for: plan.entry, scheme: $0.scheme.name, scale: request.scale ?? sessionScale) } : nil
        // A token handed to an earlier launch was used there (``UsedActivationTokens``).
        let token = usedActivationTokens.unused(request.activationToken)
        let context = LaunchContext(
            source: caller.appID, activationToken: token,
            startupID: token ?? (image != nil && splashAvailable ? LaunchContext.newStartupID() : nil))
        return Admission(plan: plan, context: context, image: image, config: config, slot: slot)
    }

    /// The caller's own entry, when it declares the scheme of every callback in `urls`;
    /// `CallbackNotOwned` otherwise, saying how to declare it.
    func callbackOwner(_ urls: [String], caller: Caller) throws(OpenFailure) -> String {
        guard let appID = caller.appID, let entry = registry.entry(id: DesktopID(appID)) else {
            throw OpenFailure(.callbackNotOwned, "x-callback URLs come back only to an identified app with an installed entry; "
                + "the caller is \(caller.appID ?? "unidentified") (install a desktop entry for it, or use OpenURLWithReply without x-success)")
        }
        for callback in urls {
            guard let scheme = try? SchemeURL(callback).scheme.name else {
                throw OpenFailure(.invalidURL, "the x-callback URL '\(URLText.shortened(callback, limit: 100))' is not a valid URL")
            }
            if !entry.schemes.contains(scheme) {
                throw OpenFailure(.callbackNotOwned, "the callback scheme '\(scheme)' is not \(entry.id)'s own: declare it with "
                    + "MimeType=x-scheme-handler/\(scheme); in \(entry.path) so the callback can come back to it (and to no other app)")
            }
        }
        return entry.idText
    }
}

/// What a caller may learn about installed schemes (see ``Broker/queryScope(for:)``).
public enum QueryScope: Sendable, Equatable {
    /// Everything (query privacy off).
    case all
    /// These schemes only.
    case only(Set<String>)

    /// Whether `scheme` (lower-case) is in scope.
    public func allows(_ scheme: String) -> Bool {
        switch self {
        case .all: return true
        case .only(let s): return s.contains(scheme)
        }
    }
}

/// An admitted request: what to launch, how, and what to show.
public struct Admission: Sendable {
    /// The handler and how to start it.
    public let plan: LaunchPlan
    /// What the handler is told (environment / platform_data).
    public var context: LaunchContext
    /// The launch image to show, if any.
    public let image: String?
    /// The policy in force when the request was admitted.
    public let config: PolicyConfig
    /// The launch's slot among those in flight; given back when the admission goes away.
    public let slot: LaunchSlot
    /// The x-callback routes pinned for this request: name its handler once started
    /// (``CallbackRoutes/started(_:handler:)``), or drop them when it never starts.
    public var callbackGroup: UInt64? = nil
}
