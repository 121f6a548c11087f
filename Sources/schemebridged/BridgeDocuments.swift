import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore

/// Documents on the bus: `OpenFile` (detect the type, pick the app, copy the file into its
/// Inbox, launch it with the copy) and the type queries. Reading the caller's descriptor runs
/// on the descriptor threads; everything else as for URLs.
extension Bridge {
    /// `OpenFile(h, a{sv}) → a{sv}`. Every failure is also announced with `URLFailed` (the URL is
    /// `file://` and the file's name), every success with `URLHandled` (the Inbox copy's URL).
    func openFile(_ fd: UnixFD, options rawOptions: [String: DBusValue], sender: String) async throws(DBusError) -> OpenResults {
        var shownName = "document"
        do throws(DBusError) {
            let options = try OpenOptions(decoding: rawOptions)
            let known = await callers.caller(sender, connection: connection, registry: registry)
            let key = known.appID ?? sender
            let documents = self.documents
            let (name, type) = try await descriptors.run(for: key) { () throws(DBusError) in
                try Self.adapt { () throws(OpenFailure) in try documents.inspect(fd.rawValue, contentType: options.contentType) }
            }
            shownName = name
            let entry = try await handlerEntry(for: type, requested: options.handler, ask: options.ask, caller: Self.caller(sender, known))
            let config = broker.policy.current
            sweepInboxes(retention: config.inboxRetention)
            // Charged to the sending app; callers not identified share one charge.
            let sendingApp = known.appID ?? "(unidentified)"
            let limits = InboxLimits(inboxBytes: config.inboxBytes, retention: config.inboxRetention)
            let path = try await descriptors.run(for: key) { () throws(DBusError) in
                try Self.adapt { () throws(OpenFailure) in try documents.inbox.place(fd.rawValue, name: name, desktopID: entry.id, caller: sendingApp, limits: limits) }
            }
            do throws(DBusError) {
                let url = try Self.adapt { () throws(OpenFailure) in
                    do { return try SchemeURL(Inbox.fileURL(path)) } catch { throw OpenFailure(.failed, "the Inbox path \(path) makes no valid URL") }
                }
                var splashAvailable = false
                if case .splash = presenter.mode { splashAvailable = true }
                let request = OpenRequest(url: url.string, handler: entry.id, activationToken: options.activationToken,
                                          launchImage: options.launchImage, scale: options.scale, caller: Self.caller(sender, known))
                let admission = try Self.adapt { () throws(OpenFailure) in
                    try broker.admit(document: url, entry: entry, request: request, searchPath: searchPath,
                                     sessionScale: sessionScale.load(ordering: .relaxed), splashAvailable: splashAvailable)
                }
                var results = try await launch(admission, annotation: options.annotation, caller: request.caller,
                                               method: ContractMethod.openFile, reply: nil, contentType: type)
                results.contentType = type
                results.path = path
                return results
            } catch {
                unlink(path)  // nothing was started with it
                throw error
            }
        } catch {
            logger.notice("could not open the document \(shownName): \(error.name.rawValue): \(error.message)")
            announce(URLFailed(url: Inbox.fileURL("/" + shownName), errorName: error.name.rawValue, message: error.message), to: sender)
            throw error
        }
    }

    /// `ContentTypeForFile(h, s) → s`.
    func contentType(of fd: UnixFD, name: String, sender: String) async throws(DBusError) -> String {
        let known = await callers.caller(sender, connection: connection, registry: registry)
        let documents = self.documents
        return try await descriptors.run(for: known.appID ?? sender) { () throws(DBusError) in
            try Self.adapt { () throws(OpenFailure) in try documents.contentType(of: fd.rawValue, name: name) }
        }
    }

    /// The entry to open a document of `type` with: `requested` (it must open that type or one
    /// along its parent chain); else the caller's remembered choice or route for the type; else,
    /// with `ask`, the user's pick among the type's handlers; else the default of the first type
    /// along the chain with a handler.
    func handlerEntry(for type: String, requested: String?, ask: Bool, caller: Caller) async throws(DBusError) -> DesktopEntry {
        let chain = documents.types.parentChain(of: type)
        if let requested {
            let opens = chain.contains { documents.handlers(forType: $0).handlers.contains(requested) }
            guard opens, let entry = registry.entry(id: requested), !broker.router.routesBackToUs(entry) else {
                throw ContractError.invalidHandler("\(requested) does not open \(type) documents")
            }
            return entry
        }
        // The type's handlers, default first, as desktop ids; their entries are read only as
        // needed: a type that thousands of entries list (text/plain) would otherwise have every
        // one of them read, twice, on each open (~13 ms at 10,000).
        let ids = documents.handlers(forType: type).handlers
        func eligible(_ id: String) -> DesktopEntry? {
            registry.entry(id: id).flatMap { broker.router.routesBackToUs($0) ? nil : $0 }
        }
        func isUsable(_ id: String) -> Bool {
            ids.contains(id) && (eligible(id).map { Policy.allows(caller: caller.appID, entry: $0) } ?? false)
        }
        guard let first = ids.lazy.compactMap(eligible).first else {
            throw ContractError.noHandler("no installed application opens \(type) documents (declare it with MimeType=\(type); in a desktop entry)")
        }
        if let appID = caller.appID, let preferred = broker.preferredHandler(subject: type, appID: appID, isUsable: isUsable),
           let entry = registry.entry(id: preferred.desktopID) {
            return entry
        }
        let usable = ask ? ids.filter(isUsable) : []
        if ask, !usable.isEmpty {
            let candidates = usable.compactMap { registry.entry(id: $0).map(ChooserCandidate.init) }
            switch try await choosers.choose(subject: type, candidates: candidates, caller: caller) {
            case .cancelled(let reason):
                throw ContractError.cancelled("nothing was opened: \(reason)")
            case .picked(let id, let always):
                guard usable.contains(id), let entry = registry.entry(id: id) else {
                    throw ContractError.invalidHandler("the chooser picked '\(id.prefix(200))', which is not one of the applications offered for \(type)")
                }
                if always {
                    do { try await broker.remember(id, for: type, caller: caller) } catch { logger.notice("\(error.message)") }
                }
                return entry
            }
        }
        return first
    }

    /// The eligible handlers of `type` (or of the first type along its parent chain that has
    /// any), default first, SchemeBridge itself left out.
    func handlers(forType type: String) -> [String] {
        documents.handlers(forType: type).handlers.filter { id in registry.entry(id: id).map { !broker.router.routesBackToUs($0) } ?? false }
    }

    /// `SetDefaultHandlerForType`: as `SetDefaultHandler`, for a content type.
    func setDefault(type: String, desktopID: String, sender: String) async throws(DBusError) {
        let known = await callers.caller(sender, connection: connection, registry: registry)
        try await Self.adaptAsync { () async throws(OpenFailure) in
            try await broker.setDefault(type: type, desktopID: desktopID, caller: Self.caller(sender, known))
        }
    }

    /// Removes Inbox files past `retention`, at most once a minute (on a descriptor thread).
    func sweepInboxes(retention: Int64) {
        let now = Int64(time(nil))
        guard inboxSweep.exchange(now, ordering: .relaxed) < now - 60 else { return }
        let inbox = documents.inbox
        Task.detached { [descriptors] in
            _ = try? await descriptors.run(for: "inbox sweep") { () throws(DBusError) in inbox.sweep(retention: retention, now: now) }
        }
    }

    /// Runs an async core call, turning its failure into the contract's D-Bus error.
    static func adaptAsync<T>(_ body: () async throws(OpenFailure) -> T) async throws(DBusError) -> T {
        do { return try await body() } catch { throw DBusError(error) }
    }

    /// Runs a core call, turning its failure into the contract's D-Bus error.
    static func adapt<T>(_ body: () throws(OpenFailure) -> T) throws(DBusError) -> T {
        do { return try body() } catch { throw DBusError(error) }
    }
}
