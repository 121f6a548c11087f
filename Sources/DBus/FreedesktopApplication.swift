/// A typed client of one `DBusActivatable` application's `org.freedesktop.Application`
/// (Desktop Entry spec, "D-Bus Activation"): `Open`, `ActivateAction` and `Activate`, each with
/// its `platform_data`. The one place the service spells the interface: launching a URL or a
/// document, handing a share to a target's action, and starting a pick's provider all call it.
///
/// The names come from the entry (its id is the bus name; the object path is derived from it),
/// and the core checks them when it reads the entry (an entry whose id is no bus name is not
/// activatable); ``init(connection:busName:objectPath:)`` still refuses names the bus would reject.
public struct FreedesktopApplication: Sendable {
    /// `org.freedesktop.Application`.
    public static let interface: InterfaceName = "org.freedesktop.Application"

    public let connection: Connection
    public let busName: BusName
    public let objectPath: ObjectPath

    /// The application at `busName` and `objectPath`; `InvalidArgs` when either is not valid.
    public init(connection: Connection, busName: String, objectPath: String) throws(DBusError) {
        guard let name = try? BusName(busName), let path = try? ObjectPath(objectPath) else {
            throw DBusError(.invalidArgs, "'\(busName.prefix(255))' is not a valid bus name and object path for org.freedesktop.Application")
        }
        self.connection = connection
        self.busName = name
        self.objectPath = path
    }

    /// `Open(as uris, a{sv} platform_data)`: the application opens `uris`. Each call returns the
    /// unique name of the connection that answered (the bus says who sent a reply, and takes a
    /// reply only from the connection the call went to): the name's owner, without asking the bus.
    @discardableResult
    public func open(_ uris: [String], platformData: [String: DBusValue], timeout: Duration = .seconds(25)) async throws(DBusError) -> String? {
        try await call("Open", [.strings(uris), .vardict(platformData)], timeout: timeout)
    }

    /// `ActivateAction(s action_name, av parameter, a{sv} platform_data)`: one of the entry's actions.
    @discardableResult
    public func activateAction(_ action: String, parameters: [DBusValue] = [], platformData: [String: DBusValue],
                               timeout: Duration = .seconds(25)) async throws(DBusError) -> String? {
        try await call("ActivateAction", [.string(action), .array(element: .variant, parameters.map { .variant($0) }), .vardict(platformData)],
                       timeout: timeout)
    }

    /// `Activate(a{sv} platform_data)`: the application starts (or comes forward).
    @discardableResult
    public func activate(platformData: [String: DBusValue], timeout: Duration = .seconds(25)) async throws(DBusError) -> String? {
        try await call("Activate", [.vardict(platformData)], timeout: timeout)
    }

    private func call(_ member: MemberName, _ arguments: [DBusValue], timeout: Duration) async throws(DBusError) -> String? {
        try await connection.callMessage(destination: busName, path: objectPath, interface: Self.interface, member: member, arguments, timeout: timeout).sender
    }
}
