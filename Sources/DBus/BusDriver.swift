/// A typed client of the bus driver (`org.freedesktop.DBus` at `/org/freedesktop/DBus`): the
/// calls a service makes about other connections, each with its reply checked, instead of
/// hand-spelled `call`s. Every call takes a timeout: the bus driver answers at once unless the
/// bus is overloaded.
public struct BusDriver: Sendable {
    /// The bus driver's name, path and interface.
    public static let name: BusName = "org.freedesktop.DBus"
    public static let path: ObjectPath = "/org/freedesktop/DBus"
    public static let interface: InterfaceName = "org.freedesktop.DBus"

    public let connection: Connection

    public init(_ connection: Connection) {
        self.connection = connection
    }

    /// What `GetConnectionCredentials` says about a connection (keys the bus does not give are nil).
    public struct Credentials: Sendable {
        /// `ProcessID`.
        public var processID: UInt32?
        /// `UnixUserID`.
        public var unixUserID: UInt32?
        /// `ProcessFD` (dbus-daemon 1.15.8 and later): a pidfd for the process, which a reused
        /// pid can never be.
        public var processFD: UnixFD?
    }

    /// `GetConnectionCredentials(name)`.
    public func credentials(of name: String, timeout: Duration = .seconds(2)) async throws(DBusError) -> Credentials {
        let reply = try await call("GetConnectionCredentials", [.string(name)], timeout: timeout)
        guard let dict = reply.first?.stringDictionary else { throw Self.unexpected("GetConnectionCredentials", reply) }
        var c = Credentials()
        if case .uint32(let pid)? = dict["ProcessID"]?.unwrapped { c.processID = pid }
        if case .uint32(let uid)? = dict["UnixUserID"]?.unwrapped { c.unixUserID = uid }
        if case .unixFD(let fd)? = dict["ProcessFD"]?.unwrapped { c.processFD = fd }
        return c
    }

    /// `GetConnectionUnixProcessID(name)`.
    public func processID(of name: String, timeout: Duration = .seconds(2)) async throws(DBusError) -> UInt32 {
        let reply = try await call("GetConnectionUnixProcessID", [.string(name)], timeout: timeout)
        guard case .uint32(let pid)? = reply.first else { throw Self.unexpected("GetConnectionUnixProcessID", reply) }
        return pid
    }

    /// `GetNameOwner(name)`: the unique name owning `name` (`NameHasNoOwner` when none).
    public func nameOwner(_ name: String, timeout: Duration = .seconds(2)) async throws(DBusError) -> String {
        let reply = try await call("GetNameOwner", [.string(name)], timeout: timeout)
        guard case .string(let owner)? = reply.first else { throw Self.unexpected("GetNameOwner", reply) }
        return owner
    }

    /// `NameHasOwner(name)`.
    public func nameHasOwner(_ name: String, timeout: Duration = .seconds(2)) async throws(DBusError) -> Bool {
        let reply = try await call("NameHasOwner", [.string(name)], timeout: timeout)
        guard case .boolean(let has)? = reply.first else { throw Self.unexpected("NameHasOwner", reply) }
        return has
    }

    /// Whether `name` can be called now: owned, or one the bus can start (false when the bus
    /// would not say within `timeout`).
    public func isAvailable(_ name: String, timeout: Duration = .seconds(2)) async -> Bool {
        if (try? await nameHasOwner(name, timeout: timeout)) == true { return true }
        return (try? await activatableNames(timeout: timeout))?.contains(name) ?? false
    }

    /// `ListActivatableNames()`: the names the bus can start.
    public func activatableNames(timeout: Duration = .seconds(2)) async throws(DBusError) -> [String] {
        let reply = try await call("ListActivatableNames", [], timeout: timeout)
        guard let names = reply.first?.arrayElements else { throw Self.unexpected("ListActivatableNames", reply) }
        return names.compactMap(\.string)
    }

    /// `StartServiceByName(name, 0)`: 1 when it was started, 2 when it was running already.
    @discardableResult
    public func startService(_ name: String, timeout: Duration = .seconds(25)) async throws(DBusError) -> UInt32 {
        let reply = try await call("StartServiceByName", [.string(name), .uint32(0)], timeout: timeout)
        guard case .uint32(let code)? = reply.first else { throw Self.unexpected("StartServiceByName", reply) }
        return code
    }

    /// `GetId()`: the bus's id. A round trip: every message the bus sent before it has been read.
    public func id(timeout: Duration = .seconds(5)) async throws(DBusError) -> String {
        let reply = try await call("GetId", [], timeout: timeout)
        guard case .string(let id)? = reply.first else { throw Self.unexpected("GetId", reply) }
        return id
    }

    /// The bus's `NameOwnerChanged` signals, typed (malformed ones are skipped).
    public func nameOwnerChanges() async throws(DBusError) -> AsyncCompactMapSequence<AsyncStream<Message>, NameOwnerChanged> {
        try await connection.signals(matching: MatchRule(sender: Self.name, interface: Self.interface, member: "NameOwnerChanged"))
            .compactMap(NameOwnerChanged.init(message:))
    }

    private func call(_ member: MemberName, _ arguments: [DBusValue], timeout: Duration) async throws(DBusError) -> [DBusValue] {
        try await connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: member, arguments, timeout: timeout)
    }

    private static func unexpected(_ member: String, _ reply: [DBusValue]) -> DBusError {
        DBusError(.failed, "the bus driver answered \(member) with (\(reply.map { "\($0.type)" }.joined(separator: ", ")))")
    }
}

/// `NameOwnerChanged(name, old_owner, new_owner)`: a name got, changed or lost its owner.
public struct NameOwnerChanged: Sendable, Equatable {
    public let name: String
    /// "" when the name had no owner.
    public let oldOwner: String
    /// "" when the name has no owner now.
    public let newOwner: String

    public init(name: String, oldOwner: String, newOwner: String) {
        (self.name, self.oldOwner, self.newOwner) = (name, oldOwner, newOwner)
    }

    /// The signal in `message`; nil when it is malformed.
    public init?(message: Message) {
        guard message.body.count == 3, case .string(let name) = message.body[0], case .string(let old) = message.body[1],
              case .string(let new) = message.body[2] else { return nil }
        self.init(name: name, oldOwner: old, newOwner: new)
    }

    /// Whether a connection left the bus (its unique name lost its owner; it is never reused).
    public var isConnectionLeaving: Bool { name.hasPrefix(":") && newOwner.isEmpty }
}
