/// One entry of the permission store's `desktop-used-apps` table as the store gives it
/// (`org.freedesktop.impl.portal.PermissionStore.Lookup` → `(a{sas} permissions, v data)`).
public struct PortalPermissionEntry: Sendable {
    /// Each app's permission strings (`a{sas}`).
    public var apps: [String: [String]]
    /// The entry's data.
    public var data: PortalPermissionData

    public init(apps: [String: [String]], data: PortalPermissionData) { (self.apps, self.data) = (apps, data) }
}

/// An entry's data as the portal frontend reads it: nothing (the store's `byte 0`, what
/// `SetPermission` makes), a dictionary (`a{sv}`: `always-ask` a boolean), or something else.
public enum PortalPermissionData: Sendable {
    /// The store's `byte 0`.
    case none
    /// An `a{sv}`, its entries in order.
    case dictionary([PortalPermissionItem])
    /// Anything else: never rewritten.
    case other
}

/// One `{sv}` of an entry's data: a boolean is read; any other value is the adapter's own,
/// handed back unchanged when the data is written again.
public struct PortalPermissionItem: Sendable {
    public enum Value: Sendable {
        case boolean(Bool)
        /// The adapter's value (its variant), kept as it was.
        case opaque(any Sendable)
    }
    public let key: String
    public let value: Value

    public init(key: String, value: Value) { (self.key, self.value) = (key, value) }
}

/// The permission store's table as a bus client speaks it — `Lookup`, `SetValue`, `SetPermission`,
/// `DeletePermission`, `Delete` — with no rule of its own: the rules (which key, what to keep,
/// when an entry goes) are ``PortalPermissionRules``'. The command line's and the service's
/// adapters implement it over their connections.
public protocol PortalPermissionTable: Sendable {
    /// The entry `id`; nil when there is none.
    func lookup(_ id: String) throws(PortalIntegrationError) -> PortalPermissionEntry?
    /// `SetValue(table, create: true, id, data)`: the data replaced, the app permissions kept.
    func setData(_ id: String, _ data: PortalPermissionData) throws(PortalIntegrationError)
    /// `SetPermission(table, create: true, id, app, strings)`.
    func setPermission(_ id: String, app: String, _ strings: [String]) throws(PortalIntegrationError)
    /// `DeletePermission(table, id, app)`.
    func deletePermission(_ id: String, app: String) throws(PortalIntegrationError)
    /// `Delete(table, id)`.
    func delete(_ id: String) throws(PortalIntegrationError)
}

/// ``PortalPermissionStore`` over a ``PortalPermissionTable``: a type's `always-ask` and an app's
/// permission read and written as the portal frontend keeps them (xdg-desktop-portal
/// `src/open-uri.c`), every other key of the data, every other app's permission kept; an entry
/// SchemeBridge emptied goes when nothing else is in it (so `disable` leaves no entry where there
/// was none).
public struct PortalPermissionRules<Table: PortalPermissionTable>: PortalPermissionStore, Sendable {
    public let table: Table
    /// The data's key the frontend reads.
    public static var key: String { "always-ask" }

    public init(table: Table) { self.table = table }

    /// The ``PortalAskState`` `data` says.
    public static func state(of data: PortalPermissionData) -> PortalAskState {
        switch data {
        case .none: return .noData
        case .other: return .unsupported
        case .dictionary(let items):
            guard let item = items.first(where: { $0.key == key }) else { return .unset }
            if case .boolean(let b) = item.value { return .set(b) }
            return .unsupported
        }
    }

    public func alwaysAsk(_ type: String) throws(PortalIntegrationError) -> PortalAskState {
        guard let entry = try table.lookup(type) else { return .noEntry }
        return Self.state(of: entry.data)
    }

    public func setAlwaysAsk(_ type: String, _ state: PortalAskState) throws(PortalIntegrationError) {
        let entry = try table.lookup(type)
        // The data's other entries, in their order, without ours.
        var others: [PortalPermissionItem] = []
        if let data = entry?.data, case .dictionary(let items) = data { others = items.filter { $0.key != Self.key } }
        switch state {
        case .set(let b):
            try table.setData(type, .dictionary(others + [PortalPermissionItem(key: Self.key, value: .boolean(b))]))
        case .unset:
            try table.setData(type, .dictionary(others))
        case .noData, .noEntry:
            // No entry now: there is nothing to take out.
            guard let entry else { return }
            if state == .noEntry, others.isEmpty, entry.apps.isEmpty { return try table.delete(type) }
            try table.setData(type, others.isEmpty ? .none : .dictionary(others))
        case .unsupported:
            return
        }
    }

    public func permission(_ type: String, app: String) throws(PortalIntegrationError) -> PortalAppPermission {
        guard let entry = try table.lookup(type) else { return .noEntry }
        return entry.apps[app].map { .strings($0) } ?? PortalAppPermission.none
    }

    public func setPermission(_ type: String, app: String, _ permission: PortalAppPermission) throws(PortalIntegrationError) {
        switch permission {
        case .strings(let strings):
            try table.setPermission(type, app: app, strings)
        case .none, .noEntry:
            guard let entry = try table.lookup(type) else { return }
            if entry.apps[app] != nil { try table.deletePermission(type, app: app) }
            guard permission == .noEntry, let after = try table.lookup(type) else { return }
            if after.apps.isEmpty, Self.state(of: after.data) == .noData { try table.delete(type) }
        }
    }
}
