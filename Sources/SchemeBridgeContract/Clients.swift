import DBus

/// The SchemeBridge service over a ``Connection`` (async; for services and long-lived apps).
public struct SchemeBridgeClient: Sendable {
    /// The connection calls go through.
    public let connection: Connection
    /// How long a call may take.
    public var timeout: Duration

    public init(connection: Connection, timeout: Duration = .seconds(25)) {
        self.connection = connection
        self.timeout = timeout
    }

    /// Performs `call`; a contract error comes back as a ``DBusError`` (match it with
    /// `catch ContractError.noHandler`).
    public func perform<R>(_ call: ContractCall<R>) async throws(DBusError) -> R {
        let reply = try await connection.call(destination: Contract.busName, path: call.path,
                                              interface: call.interface, member: call.member, call.arguments, timeout: timeout)
        return try call.decode(reply)
    }

    /// Reads a property of the contract's interface.
    public func property(_ name: MemberName) async throws(DBusError) -> DBusValue {
        try Self.propertyValue(await connection.call(
            destination: Contract.busName, path: Contract.objectPath, interface: .properties, member: "Get",
            Self.propertyArguments(name), timeout: timeout), name)
    }

    static func propertyArguments(_ name: MemberName) -> [DBusValue] { [.string(Contract.interface.rawValue), .string(name.rawValue)] }

    static func propertyValue(_ reply: [DBusValue], _ name: MemberName) throws(DBusError) -> DBusValue {
        guard let first = reply.first else { throw DBusError(.failed, "the service sent an empty reply for \(name)") }
        return first.unwrapped
    }
}

/// The SchemeBridge service over a ``BlockingConnection`` (blocking; for the CLI and scripts).
public struct SchemeBridgeBlockingClient {
    /// The connection calls go through.
    public let connection: BlockingConnection
    /// How long a call may take.
    public var timeout: Duration

    public init(connection: BlockingConnection, timeout: Duration = .seconds(25)) {
        self.connection = connection
        self.timeout = timeout
    }

    /// Performs `call`, blocking until the reply comes.
    public func perform<R>(_ call: ContractCall<R>) throws(DBusError) -> R {
        let reply = try connection.call(destination: Contract.busName, path: call.path,
                                        interface: call.interface, member: call.member, call.arguments, timeout: timeout)
        return try call.decode(reply)
    }

    /// Reads a property of the contract's interface.
    public func property(_ name: MemberName) throws(DBusError) -> DBusValue {
        try SchemeBridgeClient.propertyValue(connection.call(
            destination: Contract.busName, path: Contract.objectPath, interface: .properties, member: "Get",
            SchemeBridgeClient.propertyArguments(name), timeout: timeout), name)
    }
}
