import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import Synchronization

/// `org.freedesktop.impl.portal.FileChooser` at `/org/freedesktop/portal/desktop` (issue 40,
/// item 3): a sandboxed app's Open dialog offers SchemeBridge's document providers beside
/// "Files…". The route is the core's (``Broker/route(_:caller:ownRequest:)``); this adapter
/// shows the pick sheet, starts the provider chosen with a pick token (a request of the reply
/// machinery whose caller is the service itself: its `Response` comes back on this connection),
/// places what the provider hands over in the app's Inbox and answers its `file://` uris, which
/// the frontend hands into the sandbox through the document portal. "Files…", `SaveFile` and
/// `SaveFiles` are the desktop's own backend's (``FileChooserDelegate``): the same call, made on
/// its `impl` object, answered with its reply. Only the real frontend is answered
/// (``PortalAppChooser/requireFrontend(_:)``); the `Request` object at each call's `handle`
/// takes the frontend's `Close`: the call is answered 1 at once and the sheet's provider or the
/// delegate is told.
final class PortalFileChooser: Sendable {
    static let interface = PortalBackend.fileChooserInterface

    let broker: Broker
    let connection: Connection
    let chooser: ChooserService
    let picking: Picking
    let replies: ReplyService
    let frontend: PortalAppChooser
    let logger: Logger
    /// The desktop's own FileChooser backend (its bus name).
    let delegate: BusName
    private let running = Mutex<[String: FileChooserCall]>([:])

    init(broker: Broker, connection: Connection, chooser: ChooserService, picking: Picking, frontend: PortalAppChooser,
         environment: [String: String], logger: Logger) {
        (self.broker, self.connection, self.chooser, self.picking, self.frontend) = (broker, connection, chooser, picking, frontend)
        (self.replies, self.logger) = (picking.replies, logger)
        let portals = environment["XDG_DESKTOP_PORTAL_DIR"] ?? "/usr/share/xdg-desktop-portal/portals"
        let name = FileChooserDelegate.busName(portalsDirectory: portals, desktops: PortalSelection.desktops(environment["XDG_CURRENT_DESKTOP"]))
        delegate = (try? BusName(name)) ?? BusName(stringLiteral: FileChooserDelegate.fallback)
    }

    func declaration() -> Interface {
        Interface(Self.interface, methods: [
            Method(PortalSignature.openFile, handler: .async { [self] call in try await self.openFile(call) }),
            Method(PortalSignature.saveFile, handler: .async { [self] call in try await self.passOn(call, PortalSignature.saveFile.name) }),
            Method(PortalSignature.saveFiles, handler: .async { [self] call in try await self.passOn(call, PortalSignature.saveFiles.name) }),
        ])
    }

    static let cancelled: [DBusValue] = [.uint32(PortalResponse.cancelled.rawValue), .vardict([:])]
    static let other: [DBusValue] = [.uint32(PortalResponse.other.rawValue), .vardict([:])]

    private func openFile(_ call: MethodCall) async throws -> [DBusValue] {
        try await frontend.requireFrontend(call.sender)
        let options = call.arguments[4].stringDictionary ?? [:]
        let request = FileChooserRequest(appID: call.string(1), parentWindow: call.string(2), title: call.string(3),
                                         multiple: options["multiple"]?.unwrapped.bool ?? false,
                                         directory: options["directory"]?.unwrapped.bool ?? false,
                                         filters: (options["filters"]?.unwrapped.arrayElements ?? []).map(Self.filter),
                                         currentFilter: options["current_filter"].map { Self.filter($0.unwrapped) },
                                         database: broker.documents?.types)
        if let warning = request.parentWindowWarning { logger.notice("\(warning)") }
        let pid = try? await BusDriver(connection).processID(of: call.sender)
        let caller = request.caller(frontend: call.sender, pid: pid)
        let route = broker.route(request, caller: caller, ownRequest: FileChooserRequest.isOwnRequest(handle: call.string(0), uniqueName: connection.uniqueName))
        return try await run(call) { [self] state in
            switch route {
            case .delegate(let why):
                logger.info("portal: \(caller.displayName)'s Open dialog is the desktop's (\(delegate.rawValue)): \(why)")
                return await delegated(call, PortalSignature.openFile.name, state)
            case .pick(let subject, let decision):
                return await pick(subject, decision, request: request, caller: caller, call: call, state: state)
            }
        }
    }

    private func passOn(_ call: MethodCall, _ member: MemberName) async throws -> [DBusValue] {
        try await frontend.requireFrontend(call.sender)
        return try await run(call) { [self] state in await delegated(call, member, state) }
    }

    /// Runs `body` for `call`, with the `Request` object at its handle while it runs; a `Close`
    /// there answers 1 at once (what `body` answers later is dropped).
    private func run(_ call: MethodCall, _ body: @escaping @Sendable (FileChooserCall) async -> [DBusValue]) async throws -> [DBusValue] {
        let handle = call.string(0)
        guard let path = try? ObjectPath(handle) else { throw DBusError(.invalidArgs, "the handle is not an object path") }
        let frontend = call.sender
        let answer: [DBusValue] = await withCheckedContinuation { c in
            let state = FileChooserCall(c)
            running.withLock { $0[handle] = state }
            try? connection.export([requestDeclaration(handle: handle, frontend: frontend)], at: path)
            // Not a child task: a Close answers at once while the sheet or the delegate is still up.
            Task { state.resume(await body(state)) }
        }
        if running.withLock({ $0.removeValue(forKey: handle) }) != nil { connection.unexport(path) }
        return answer
    }

    private func requestDeclaration(handle: String, frontend: String) -> Interface {
        Interface(PortalAppChooser.requestInterface, methods: [
            Method(PortalSignature.close, handler: .inline { [weak self] call in
                guard call.sender == frontend, let self else { throw DBusError(.accessDenied, "only the portal may close its request") }
                guard let state = self.running.withLock({ $0.removeValue(forKey: handle) }) else { return [] }
                self.connection.unexport(call.path)
                state.resume(Self.cancelled)
                switch state.close() {
                case .picking(let id)?:
                    self.replies.answer(id, code: .cancelled)
                case .delegated?:
                    try? self.connection.send(destination: self.delegate, path: call.path, interface: PortalAppChooser.requestInterface, member: PortalSignature.close.name)
                case .deciding?, nil:
                    break
                }
                return []
            }),
        ])
    }

    /// The same call made on the delegate's `impl` object; its reply is the answer.
    private func delegated(_ call: MethodCall, _ member: MemberName, _ state: FileChooserCall) async -> [DBusValue] {
        guard state.enter(.delegated) else { return Self.cancelled }
        do {
            // No timeout of our own: the user browses for as long as the frontend waits.
            let reply = try await connection.call(destination: delegate, path: PortalAppChooser.path, interface: Self.interface, member: member,
                                                  call.arguments, timeout: .seconds(Int64(Int32.max)))
            guard reply.count == 2, case .uint32 = reply[0], reply[1].stringDictionary != nil else {
                logger.warning("the desktop's FileChooser (\(delegate.rawValue)) answered \(member.rawValue) oddly")
                return Self.other
            }
            return reply
        } catch {
            logger.warning("the desktop's FileChooser (\(delegate.rawValue)) failed \(member.rawValue): \(error.name.rawValue): \(error.message)")
            return Self.other
        }
    }

    /// The sheet (unless the decision needs none), then the provider chosen, or the delegate for "Files…".
    private func pick(_ subject: PickSubject, _ decision: HandlerDecision, request: FileChooserRequest, caller: Caller, call: MethodCall,
                      state: FileChooserCall) async -> [DBusValue] {
        let provider: String
        do {
            let context = ChooserContext(title: request.title.isEmpty ? nil : request.title, parentWindow: request.parentWindow)
            let settled = try await broker.settle(decision, for: .pick, caller: caller, chooser: chooser, context: context,
                                                  warn: { [logger] in logger.notice("\($0)") })
            guard let id = settled.id else { return Self.other }
            provider = id.text
        } catch {
            logger.info("portal: \(caller.displayName)'s pick ended: \(error.message)")
            return error.kind == .cancelled ? Self.cancelled : Self.other
        }
        if provider == Broker.filesCandidate.id.text {
            logger.info("portal: \(caller.displayName) chose Files…: the desktop's (\(delegate.rawValue))")
            return await delegated(call, PortalSignature.openFile.name, state)
        }
        do {
            return try await provide(provider, subject: subject, request: request, caller: caller, state: state)
        } catch {
            let e = DBusError.from(error)
            logger.notice("portal: \(provider) gave \(caller.displayName) nothing: \(e.name.rawValue): \(e.message)")
            return Self.other
        }
    }

    /// Starts `provider` with a pick token and waits for its answer (the request's `Response`,
    /// sent to this connection): the documents it handed over (checked and copied by the pick's
    /// rules) placed in the app's Inbox, answered as `file://` uris.
    private func provide(_ provider: String, subject: PickSubject, request: FileChooserRequest, caller: Caller,
                         state: FileChooserCall) async throws -> [DBusValue] {
        let pending = try replies.begin(caller: connection.uniqueName, handlerID: provider, timeout: Picking.pickTimeout,
                                        purpose: .pick(subject, multiple: request.multiple))
        let responses = try await connection.signals(matching: MatchRule(interface: Response.interface, member: Response.member,
                                                                         path: ReplyService.path(pending.id)))
        guard state.enter(.picking(pending.id)) else {
            replies.answer(pending.id, code: .cancelled)
            return Self.cancelled
        }
        replies.publish(pending.id)
        do {
            try await picking.startProvider(DesktopID(fileName: provider), request: pending, options: PickOptions(multiple: request.multiple, title: request.title),
                                            caller: caller)
        } catch {
            replies.fail(pending.id, DBusError.from(error))
            throw error
        }
        var answer: (UInt32, [String: DBusValue])?
        for await m in responses {
            if m.body.count == 2, case .uint32(let code) = m.body[0], let results = m.body[1].stringDictionary {
                answer = (code, results)
                break
            }
        }
        guard let (code, results) = answer else { return Self.other }
        guard code == ReplyCode.success.rawValue else {
            if let message = results[Response.Key.errorMessage]?.unwrapped.string { logger.notice("portal: \(provider)'s pick failed: \(message)") }
            return code == ReplyCode.cancelled.rawValue ? Self.cancelled : Self.other
        }
        let fds = (results[PickContract.ResultKey.fds]?.unwrapped.arrayElements ?? []).compactMap { v -> UnixFD? in
            if case .unixFD(let fd) = v { return fd } else { return nil }
        }
        let names = (results[PickContract.ResultKey.names]?.unwrapped.arrayElements ?? []).compactMap(\.string)
        guard !fds.isEmpty, names.count == fds.count else { return Self.other }
        let inbox = broker.documents?.inbox ?? Inbox(root: "")
        let app = caller.desktopID ?? DesktopID(Contract.ownDesktopID)
        let (sender, limits) = (Inbox.chargedSender(appID: DesktopID(fileName: provider).appID), broker.policy.current.inboxLimits)
        let paths = try await picking.descriptors.run(for: caller.appID ?? connection.uniqueName) { () throws -> [[UInt8]] in
            var placed: [[UInt8]] = []
            for (fd, name) in zip(fds, names) {
                placed.append(Array(try fd.withFileDescriptor { d in try inbox.place(d, name: name, desktopID: app, caller: sender, limits: limits) }.utf8))
            }
            return placed
        }
        logger.info("portal: \(provider) handed \(caller.displayName) \(paths.count) document(s), placed in its Inbox")
        // A copy of the app's own: read-only in the document portal (from 1.16.1 it reads
        // `writable`, and takes its absence as write access; 1.16.0 grants write access when the
        // key is there at all, but the Inbox copy is mode 0444).
        return [.uint32(PortalResponse.success.rawValue),
                .vardict(["uris": .strings(FileChooserRequest.uris(paths)), "writable": .boolean(false)])]
    }

    /// A filter `(sa(us))` decoded to its patterns (anything else: none).
    private static func filter(_ value: DBusValue) -> [FileChooserRequest.Pattern] {
        guard case .structure(let fields) = value.unwrapped, fields.count == 2 else { return [] }
        return (fields[1].arrayElements ?? []).compactMap { p in
            guard case .structure(let f) = p, f.count == 2, case .uint32(let kind) = f[0], let pattern = f[1].string else { return nil }
            return FileChooserRequest.Pattern(kind: kind, pattern: pattern)
        }
    }
}

/// One `OpenFile`/`SaveFile` in progress: answered once (by its outcome or the frontend's
/// `Close`), and where it is (so a `Close` reaches the provider's request or the delegate).
final class FileChooserCall: Sendable {
    enum Stage: Sendable, Equatable {
        case deciding
        case picking(UInt64)
        case delegated
    }

    private let continuation: Mutex<CheckedContinuation<[DBusValue], Never>?>
    /// nil once closed.
    private let stage = Mutex<Stage?>(.deciding)

    init(_ c: CheckedContinuation<[DBusValue], Never>) { continuation = Mutex(c) }

    func resume(_ answer: [DBusValue]) {
        continuation.withLock { c in
            c?.resume(returning: answer)
            c = nil
        }
    }

    /// Moves on to `next`; false when the call was closed already.
    func enter(_ next: Stage) -> Bool {
        stage.withLock { s in
            guard s != nil else { return false }
            s = next
            return true
        }
    }

    /// Marks the call closed; returns where it was.
    func close() -> Stage? {
        stage.withLock { s in
            defer { s = nil }
            return s
        }
    }
}
