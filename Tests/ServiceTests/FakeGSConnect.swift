import DBus
import Synchronization

/// A stand-in for GSConnect's service on a private bus, for what the real one cannot be made to
/// show on cue: one device `phone_1` named `name`, whose connected state and share actions the
/// test changes (announced as GSConnect does: `PropertiesChanged`, `org.gtk.Actions.Changed`),
/// and which it removes (`InterfacesRemoved`). Activations are recorded and then never answered
/// (the service "busy" until the test stops it by closing the connection). It reaches the bus
/// through `relay` (``EngineRelay``): by default as gjs running a protected GSConnect service
/// file, which the service accepts.
final class FakeGSConnect: Sendable {
    static let root: ObjectPath = "/org/gnome/Shell/Extensions/GSConnect"
    static let device: ObjectPath = "/org/gnome/Shell/Extensions/GSConnect/Device/phone_1"
    static let deviceInterface = "org.gnome.Shell.Extensions.GSConnect.Device"

    let connection: Connection
    let relay: EngineRelay
    /// What the device is now, and the activations received (action and parameter).
    final class Record: Sendable {
        let state: Mutex<(connected: Bool, shareEnabled: Bool, exported: Bool)> = Mutex((true, true, true))
        let calls = Mutex<[String]>([])
    }
    let record = Record()

    init(address: String, name: String, relay kind: EngineRelay.Kind = .trustedGSConnect) async throws {
        relay = try EngineRelay(kind, busAddress: address)
        connection = try await Connection.connect(address: relay.address)
        let record = self.record
        let props: @Sendable () -> [String: DBusValue] = {
            let s = record.state.withLock { $0 }
            return ["Id": .string("phone_1"), "Name": .string(name), "Connected": .boolean(s.connected), "Paired": .boolean(true), "Type": .string("phone")]
        }
        try connection.export([Interface("org.freedesktop.DBus.ObjectManager", methods: [
            Method("GetManagedObjects", outputs: [Argument("objects", "a{oa{sa{sv}}}")], handler: .inline { _ in
                let entries = record.state.withLock { $0.exported } ? [DictEntry(.objectPath(Self.device), Self.interfaces(props()))] : []
                return [.dictionary(key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)), entries)]
            }),
        ])], at: Self.root)
        try connection.export([Interface("org.gtk.Actions", methods: [
            Method("DescribeAll", outputs: [Argument("descriptions", "a{s(bgav)}")], handler: .inline { _ in
                let enabled = record.state.withLock { $0.shareEnabled }
                let actions: [(String, String)] = [("pair", ""), ("shareFile", "(sb)"), ("shareText", "s"), ("shareUri", "s")]
                return [.dictionary(key: .string, value: .structure([.boolean, .signature, .array(.variant)]), actions.map { action, type in
                    DictEntry(.string(action), .structure([.boolean(action == "pair" || enabled), .signature(try! Signature(type)), .array(element: .variant, [])]))
                })]
            }),
            Method("Activate", inputs: [Argument("action", "s"), Argument("parameter", "av"), Argument("platform", "a{sv}")], handler: .async { call in
                record.calls.withLock { $0.append("\(call.arguments[0].string ?? "") \(call.arguments[1].arrayElements?.first.map { String(describing: $0.unwrapped) } ?? "")") }
                try await Task.sleep(for: .seconds(3600))
                return []
            }),
        ])], at: Self.device)
        _ = try await connection.requestName("org.gnome.Shell.Extensions.GSConnect")
    }

    private static func interfaces(_ props: [String: DBusValue]) -> DBusValue {
        .dictionary(key: .string, value: .dictionary(key: .string, value: .variant), [DictEntry(.string(deviceInterface), .vardict(props))])
    }

    /// The device connects or disconnects (`PropertiesChanged` of `Connected`).
    func setConnected(_ connected: Bool) throws {
        record.state.withLock { $0.connected = connected }
        try connection.emitPropertiesChanged(path: Self.device, interface: InterfaceName(Self.deviceInterface), changed: ["Connected": .boolean(connected)])
    }

    /// The share actions are enabled or disabled (`org.gtk.Actions.Changed`, its enabled map).
    func setShareEnabled(_ enabled: Bool) throws {
        record.state.withLock { $0.shareEnabled = enabled }
        let changes = ["shareFile", "shareText", "shareUri"].map { DictEntry(.string($0), .boolean(enabled)) }
        try connection.emit(path: Self.device, interface: "org.gtk.Actions", member: "Changed", [
            .strings([]), .dictionary(key: .string, value: .boolean, changes), .vardict([:]),
            .dictionary(key: .string, value: .structure([.boolean, .signature, .array(.variant)]), []),
        ])
    }

    /// GSConnect forgets the device (`InterfacesRemoved`).
    func removeDevice() throws {
        record.state.withLock { $0.exported = false }
        try connection.emit(path: Self.root, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved",
                            [.objectPath(Self.device), .strings([Self.deviceInterface])])
    }

    /// GSConnect knows the device again (`InterfacesAdded`).
    func addDevice() throws {
        record.state.withLock { $0.exported = true }
        let props = record.state.withLock { s in
            ["Id": DBusValue.string("phone_1"), "Connected": .boolean(s.connected), "Paired": .boolean(true)]
        }
        try connection.emit(path: Self.root, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
                            [.objectPath(Self.device), Self.interfaces(props)])
    }

    /// The service stops: its connection closes with the activations unanswered.
    func stop() {
        connection.close()
        relay.remove()
    }
}
