import DBus
import SchemeBridgeCore

/// The permission store's `desktop-used-apps` table over the session bus
/// (`org.freedesktop.impl.portal.PermissionStore`, xdg-permission-store): the calls only, the
/// rules are the core's (``PortalPermissionRules``). One client for the command line
/// (`integrate --portal`) and the service (its re-sync of the published routes).
public struct PermissionStoreTable: PortalPermissionTable, @unchecked Sendable {
    let connection: BlockingConnection
    let timeout: Duration

    /// The table on `connection` (used from one thread), each call waiting at most `timeout`.
    public init(connection: BlockingConnection, timeout: Duration) { (self.connection, self.timeout) = (connection, timeout) }

    /// The core's rules over the table on a new connection to the bus at `busAddress`.
    public static func store(busAddress: String, timeout: Duration = .seconds(25)) throws(PortalIntegrationError) -> PortalPermissionRules<Self> {
        do throws(DBusError) { return PortalPermissionRules(table: Self(connection: try BlockingConnection(address: busAddress), timeout: timeout)) } catch {
            throw PortalIntegrationError("cannot reach the permission store: \(error.message)")
        }
    }
    static let name: BusName = "org.freedesktop.impl.portal.PermissionStore"
    static let path: ObjectPath = "/org/freedesktop/impl/portal/PermissionStore"
    static let interface: InterfaceName = "org.freedesktop.impl.portal.PermissionStore"
    static let table = DBusValue.string("desktop-used-apps")

    public func lookup(_ id: String) throws(PortalIntegrationError) -> PortalPermissionEntry? {
        let reply: [DBusValue]
        do { reply = try connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "Lookup",
                                         [Self.table, .string(id)], timeout: timeout) } catch {
            if error.name.rawValue == "org.freedesktop.portal.Error.NotFound" { return nil }
            throw PortalIntegrationError("the permission store (\(Self.name)) cannot be read: \(error.message)")
        }
        guard reply.count == 2 else { throw PortalIntegrationError("the permission store's Lookup answered \(reply.count) values") }
        let apps = (reply[0].stringDictionary ?? [:]).compactMapValues { $0.arrayElements?.compactMap(\.string) }
        switch reply[1].unwrapped {
        case .byte(0): return PortalPermissionEntry(apps: apps, data: .none)
        case .dictionary(.string, .variant, let entries):
            return PortalPermissionEntry(apps: apps, data: .dictionary(entries.compactMap { e in
                guard case .string(let key) = e.key else { return nil }
                if case .boolean(let b) = e.value.unwrapped { return PortalPermissionItem(key: key, value: .boolean(b)) }
                return PortalPermissionItem(key: key, value: .opaque(e.value))
            }))
        default: return PortalPermissionEntry(apps: apps, data: .other)
        }
    }

    public func setData(_ id: String, _ data: PortalPermissionData) throws(PortalIntegrationError) {
        guard case .dictionary(let items) = data else { return try call("SetValue", [Self.table, .boolean(true), .string(id), .variant(.byte(0))]) }
        let entries = items.map { i -> DictEntry in
            switch i.value {
            case .boolean(let b): DictEntry(.string(i.key), .variant(.boolean(b)))
            case .opaque(let v): DictEntry(.string(i.key), v as? DBusValue ?? .variant(.boolean(false)))  // always ours: a Lookup's
            }
        }
        try call("SetValue", [Self.table, .boolean(true), .string(id), .variant(.dictionary(key: .string, value: .variant, entries))])
    }

    public func setPermission(_ id: String, app: String, _ strings: [String]) throws(PortalIntegrationError) {
        try call("SetPermission", [Self.table, .boolean(true), .string(id), .string(app), .strings(strings)])
    }

    public func deletePermission(_ id: String, app: String) throws(PortalIntegrationError) { try call("DeletePermission", [Self.table, .string(id), .string(app)]) }

    public func delete(_ id: String) throws(PortalIntegrationError) { try call("Delete", [Self.table, .string(id)]) }

    private func call(_ member: MemberName, _ arguments: [DBusValue]) throws(PortalIntegrationError) {
        do { _ = try connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: member, arguments, timeout: timeout) } catch {
            throw PortalIntegrationError("the permission store's \(member.rawValue) failed: \(error.message)")
        }
    }
}
