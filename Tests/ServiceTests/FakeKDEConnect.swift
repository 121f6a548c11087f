import DBus
import Synchronization

/// A stand-in for KDE Connect on a private bus, for faults the real engine cannot be made to
/// show on cue: one paired, reachable device `_phone_` named `name` with its share plugin, whose
/// share methods record the call and then never answer (the engine "busy" until the test stops
/// it by closing the connection: the engine stopping mid-share) — or, with `answering`, take
/// it at once (an engine quicker than the service's own reply). It reaches the bus through
/// `relay` (``EngineRelay``): by default as a protected `kdeconnectd`, which the service accepts.
final class FakeKDEConnect: Sendable {
    let connection: Connection
    let relay: EngineRelay
    /// The share calls received (member and first argument).
    final class Calls: Sendable {
        let list = Mutex<[String]>([])
    }
    let calls = Calls()

    /// How the stand-in reports the upload a file share makes, as kdeconnectd 22.12 does to the
    /// KDE job tracker (``KDEConnectJobs``): `requiresJobTracker` while it takes the share; when
    /// that is false, `requestView` before it answers, then one `update` at 40 %, then as the case
    /// says.
    enum Job: Sendable {
        /// `terminate(code, message)` at once.
        case ends(code: UInt32, message: String)
        /// Never ends.
        case runs
        /// Ends with code 1 (KJob's "killed") when the view emits `cancelRequested`.
        case endsWhenCancelled
        /// As kdeconnectd's tracker does for a job still running: the view requested half a second
        /// after the share was answered, then `terminate(0)`.
        case endsLate
    }

    init(address: String, name: String, answering: Bool = false, job: Job? = nil, relay kind: EngineRelay.Kind = .trustedKDEConnect) async throws {
        relay = try EngineRelay(kind, busAddress: address)
        let connection = try await Connection.connect(address: relay.address)
        self.connection = connection
        // A share it answers at once, with no job to report, is answered on the connection's loop
        // thread: through the task pool, a test process busy with the whole suite beside CPU hogs
        // answered after the service's 20 s call timeout (DeviceTransferTests saw `NoReply`).
        let atOnce: @Sendable (MethodCall) throws -> [DBusValue]? = { [calls] call in
            guard job == nil, answering else { return nil }
            calls.list.withLock { $0.append("\(call.member.rawValue) \(call.arguments.first.map { "\($0)" } ?? "")") }
            return []
        }
        let never: MethodHandler = .inlineOrAsync(inline: atOnce, async: { [calls] call in
            calls.list.withLock { $0.append("\(call.member.rawValue) \(call.arguments.first.map { "\($0)" } ?? "")") }
            if let job, call.member.rawValue.hasPrefix("shareUrl"), let url = call.arguments.first?.string ?? call.arguments.first?.arrayElements?.first?.string {
                let reply = try await connection.call(destination: "org.kde.kuiserver", path: "/JobViewServer", interface: "org.kde.kuiserver",
                                                      member: "requiresJobTracker", timeout: .seconds(30))
                calls.list.withLock { $0.append("requiresJobTracker \(reply.first?.bool.map(String.init) ?? "?")") }
                // The view is requested before the share is answered, so the service has it by
                // the time the share returns, however slow this process is (the service reads a
                // share whose view never comes, after a grace, as ended unreported).
                if reply.first?.bool == false, case .endsLate = job {
                    let name = String(url.split(separator: "/").last ?? "")
                    Task {
                        try await Task.sleep(for: .milliseconds(500))
                        guard let path = try await Self.requestView(connection: connection, calls: calls) else { return }
                        try await Self.report(.ends(code: 0, message: ""), file: name, view: path, connection: connection, calls: calls)
                    }
                } else if reply.first?.bool == false, let path = try await Self.requestView(connection: connection, calls: calls) {
                    let name = String(url.split(separator: "/").last ?? "")
                    Task { try? await Self.report(job, file: name, view: path, connection: connection, calls: calls) }
                }
            }
            if !answering { try await Task.sleep(for: .seconds(3600)) }
            return []
        })
        try connection.export([Interface("org.kde.kdeconnect.daemon", methods: [
            Method("devices", inputs: [Argument("onlyReachable", "b"), Argument("onlyPaired", "b")], outputs: [Argument("ids", "as")],
                   handler: .inline { _ in [.strings(["_phone_"])] }),
        ])], at: "/modules/kdeconnect")
        try connection.export([Interface("org.kde.kdeconnect.device", methods: [
            Method("loadedPlugins", outputs: [Argument("plugins", "as")], handler: .inline { _ in [.strings(["kdeconnect_ping", "kdeconnect_share"])] }),
        ], properties: [
            Property("name", type: .string, get: { .string(name) }),
            Property("isReachable", type: .boolean, get: { .boolean(true) }),
            Property("isTrusted", type: .boolean, get: { .boolean(true) }),
        ])], at: "/modules/kdeconnect/devices/_phone_")
        try connection.export([Interface("org.kde.kdeconnect.device.share", methods: [
            Method("shareUrl", inputs: [Argument("url", "s")], handler: never),
            Method("shareUrls", inputs: [Argument("urls", "as")], handler: never),
            Method("shareText", inputs: [Argument("text", "s")], handler: never),
        ])], at: "/modules/kdeconnect/devices/_phone_/share")
        _ = try await connection.requestName("org.kde.kdeconnect")
    }

    /// Asks the job tracker for a view of an upload; its object path.
    private static func requestView(connection: Connection, calls: Calls) async throws -> ObjectPath? {
        let view = try await connection.call(destination: "org.kde.JobViewServer", path: "/JobViewServer", interface: "org.kde.JobViewServerV2", member: "requestView",
                                             [.string("org.kde.kdeconnect.daemon"), .int32(1), .vardict(["immediate": .boolean(true)])], timeout: .seconds(30))
        guard let path = view.first?.string.flatMap({ try? ObjectPath($0) }) else { return nil }
        calls.list.withLock { $0.append("requestView \(path.rawValue)") }
        return path
    }

    /// The job view `path` for an upload of `file`: updated to 40 %, then ended as `job` says.
    private static func report(_ job: Job, file: String, view path: ObjectPath, connection: Connection, calls: Calls) async throws {
        let server: BusName = "org.kde.JobViewServer"
        let cancels = try await connection.signals(matching: MatchRule(sender: server, interface: "org.kde.JobViewV3", member: "cancelRequested", path: path))
        _ = try await connection.call(destination: server, path: path, interface: "org.kde.JobViewV3", member: "update", [.vardict([
            "title": .string("Sending to Phone"), "descriptionLabel1": .string("File"), "descriptionValue1": .string(file),
            "totalBytes": .uint64(100 << 20), "processedBytes": .uint64(40 << 20), "percent": .uint32(40),
        ])], timeout: .seconds(30))
        calls.list.withLock { $0.append("updated") }
        func terminate(_ code: UInt32, _ message: String) async throws {
            _ = try await connection.call(destination: server, path: path, interface: "org.kde.JobViewV3", member: "terminate",
                                          [.uint32(code), .string(message), .vardict([:])], timeout: .seconds(30))
            calls.list.withLock { $0.append("terminate \(code)") }
        }
        switch job {
        case .ends(let code, let message): try await terminate(code, message)
        case .runs, .endsLate: break
        case .endsWhenCancelled:
            for await _ in cancels {
                calls.list.withLock { $0.append("cancelRequested") }
                try await terminate(1, "")
                break
            }
        }
    }

    /// The engine announces that device `_phone_` sent `argument` (a `file://` URL or a text's path).
    func announceReceived(_ argument: String) throws {
        try connection.emit(path: "/modules/kdeconnect/devices/_phone_/share", interface: "org.kde.kdeconnect.device.share",
                            member: "shareReceived", [.string(argument)])
    }

    /// The engine stops: its connection closes with the calls unanswered.
    func stop() {
        connection.close()
        relay.remove()
    }
}
