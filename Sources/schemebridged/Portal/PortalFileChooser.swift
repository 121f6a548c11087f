import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

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
/// takes the frontend's `Close` (``PortalCalls``): the call is answered 1 at once, the sheet is
/// taken down, and the provider's request or the delegate is told.
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
    private let calls = PortalCalls<[DBusValue]>()

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
        let pid = try await frontend.requireFrontend(call.sender)
        let options = call.arguments[4].stringDictionary ?? [:]
        let request = FileChooserRequest(appID: PortalAppName(call.string(1)), parentWindow: call.string(2), title: call.string(3),
                                         multiple: options["multiple"]?.unwrapped.bool ?? false,
                                         directory: options["directory"]?.unwrapped.bool ?? false,
                                         filters: (options["filters"]?.unwrapped.arrayElements ?? []).map(Self.filter),
                                         currentFilter: options["current_filter"].map { Self.filter($0.unwrapped) },
                                         database: broker.documents?.types)
        if let warning = request.parentWindowWarning { logger.notice("\(warning)") }
        let caller = request.caller(frontend: call.sender, pid: pid)
        let route = broker.route(request, caller: caller, ownRequest: FileChooserRequest.isOwnRequest(handle: call.string(0), uniqueName: connection.uniqueName))
        let steps = Steps(owner: self, call: call, request: request, caller: caller)
        return try await run(call) { [broker, chooser] progress in
            await broker.openFile(request, route: route, caller: caller, chooser: chooser, port: steps, progress: progress)
        }
    }

    /// The daemon's side of one `OpenFile`'s flow (``PortalFileChooserPort``): the bus, the pick
    /// request, the encoding.
    private struct Steps: PortalFileChooserPort {
        let owner: PortalFileChooser
        let call: MethodCall
        let request: FileChooserRequest
        let caller: Caller

        func delegated(_ progress: PortalCallProgress) async -> [DBusValue] { await owner.delegated(call, PortalSignature.openFile.name, progress) }

        func provide(_ provider: DesktopID, subject: PickSubject, progress: PortalCallProgress) async throws(OpenFailure) -> [[UInt8]] {
            do {
                return try await owner.provide(provider, subject: subject, request: request, caller: caller, state: progress)
            } catch let e as OpenFailure {
                throw e
            } catch {
                let e = DBusError.from(error)
                throw OpenFailure(.failed, "\(e.name.rawValue): \(e.message)")
            }
        }

        func answer(_ response: PortalResponse, paths: [[UInt8]]) -> [DBusValue] {
            // A copy of the app's own: read-only in the document portal (from 1.16.1 it reads
            // `writable`, and takes its absence as write access; 1.16.0 grants write access when
            // the key is there at all, but the Inbox copy is mode 0444).
            [.uint32(response.rawValue),
             .vardict(response == .success ? ["uris": .strings(FileChooserRequest.uris(paths)), "writable": .boolean(false)] : [:])]
        }

        func log(_ message: String) { owner.logger.info("\(message)") }
    }

    private func passOn(_ call: MethodCall, _ member: MemberName) async throws -> [DBusValue] {
        _ = try await frontend.requireFrontend(call.sender)
        return try await run(call) { [self] state in await delegated(call, member, state) }
    }

    /// Runs `body` for `call`, with the `Request` object at its handle while it runs (``PortalCalls``).
    private func run(_ call: MethodCall, _ body: @escaping @Sendable (PortalCallProgress) async -> [DBusValue]) async throws -> [DBusValue] {
        guard let path = try? ObjectPath(call.string(0)) else { throw DBusError(.invalidArgs, "the handle is not an object path") }
        let frontend = call.sender
        defer { connection.unexport(path) }
        return await calls.run(handle: call.string(0), closed: Self.cancelled, registered: {
            try? connection.export([requestDeclaration(frontend: frontend)], at: path)
        }, body)
    }

    private func requestDeclaration(frontend: String) -> Interface {
        Interface(PortalAppChooser.requestInterface, methods: [
            Method(PortalSignature.close, handler: .inline { [weak self] call in
                guard call.sender == frontend, let self else { throw DBusError(.accessDenied, "only the portal may close its request") }
                switch calls.close(call.path.rawValue) {
                case .picking(let id)?:
                    replies.answer(id, code: .cancelled)
                case .delegated?:
                    try? connection.send(destination: delegate, path: call.path, interface: PortalAppChooser.requestInterface, member: PortalSignature.close.name)
                case .deciding?, nil:
                    break  // the sheet, if up, is taken down with the work's task
                }
                return []
            }),
        ])
    }

    /// The same call made on the delegate's `impl` object; its reply is the answer.
    fileprivate func delegated(_ call: MethodCall, _ member: MemberName, _ state: PortalCallProgress) async -> [DBusValue] {
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

    /// Starts `provider` with a pick token and waits for its answer (the request's `Response`,
    /// sent to this connection): the documents it handed over (checked and copied by the pick's
    /// rules) placed in the app's Inbox; their paths.
    fileprivate func provide(_ provider: DesktopID, subject: PickSubject, request: FileChooserRequest, caller: Caller,
                             state: PortalCallProgress) async throws -> [[UInt8]] {
        let pending = try replies.begin(caller: connection.uniqueName, handlerID: ChooserTargetID(provider), timeout: Picking.pickTimeout,
                                        purpose: .pick(subject, multiple: request.multiple))
        let responses = try await connection.signals(matching: MatchRule(interface: Response.interface, member: Response.member,
                                                                         path: ReplyService.path(pending.id)))
        guard state.enter(.picking(pending.id)) else {
            replies.answer(pending.id, code: .cancelled)
            throw OpenFailure(.cancelled, "the portal closed the request")
        }
        replies.publish(pending.id)
        do {
            try await picking.startProvider(provider, request: pending, options: PickOptions(multiple: request.multiple, title: request.title),
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
        guard let (code, results) = answer else { throw OpenFailure(.failed, "no answer") }
        guard code == ReplyCode.success.rawValue else {
            let message = results[Response.Key.errorMessage]?.unwrapped.string ?? "no documents"
            throw OpenFailure(code == ReplyCode.cancelled.rawValue ? .cancelled : .failed, message)
        }
        let fds = (results[PickContract.ResultKey.fds]?.unwrapped.arrayElements ?? []).compactMap { v -> UnixFD? in
            if case .unixFD(let fd) = v { return fd } else { return nil }
        }
        let names = (results[PickContract.ResultKey.names]?.unwrapped.arrayElements ?? []).compactMap(\.string)
        guard names.count == fds.count else { throw OpenFailure(.failed, "its answer's documents and names do not match") }
        return try await picking.descriptors.run(for: caller.appID ?? connection.uniqueName) { [broker] () throws -> [[UInt8]] in
            try broker.placeProvided(Array(zip(fds, names)), provider: provider, caller: caller, hostInbox: DesktopID(Contract.ownDesktopID))
        }
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
