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

    init(address: String, name: String, answering: Bool = false, relay kind: EngineRelay.Kind = .trustedKDEConnect) async throws {
        relay = try EngineRelay(kind, busAddress: address)
        connection = try await Connection.connect(address: relay.address)
        let never: MethodHandler = .async { [calls] call in
            calls.list.withLock { $0.append("\(call.member.rawValue) \(call.arguments.first.map { "\($0)" } ?? "")") }
            if !answering { try await Task.sleep(for: .seconds(3600)) }
            return []
        }
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
