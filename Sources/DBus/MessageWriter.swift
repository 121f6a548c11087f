import CDBus
import Glibc

/// Writes a message's body straight from Swift values, in order (``Connection/emit(path:interface:member:destination:body:)``):
/// no ``DBusValue`` tree is built for what a typed sender knows the shape of. The checks are the
/// ones ``DBusValue/validate()`` and the marshalling make: no NUL in a string, a container holds
/// its declared type, an array at most 64 MiB — a failed one throws `InvalidArgs`.
public struct MessageWriter: ~Copyable {
    var iter = DBusMessageIter()

    init(message: OpaquePointer) { dbus_message_iter_init_append(message, &iter) }

    /// Appends a `u`.
    public mutating func append(_ value: UInt32) throws(DBusError) {
        var v = value
        guard dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT32, &v) != 0 else { throw Marshal.outOfMemory() }
    }

    /// Appends an `s`.
    public mutating func append(_ value: String) throws(DBusError) {
        try Marshal.appendText(value, code: CDBUS_TYPE_STRING, to: &iter)
    }

    /// Appends any value (checked as ``DBusValue/validate()`` does).
    public mutating func append(_ value: DBusValue) throws(DBusError) {
        try value.validate()
        try Marshal.append(value, to: &iter)
    }

    /// Appends `entries` as an `a{sv}`, in key order (as ``DBusValue/vardict(_:)``), each value in
    /// a variant of its own type.
    public mutating func appendVardict(_ entries: [String: DBusValue]) throws(DBusError) {
        try Marshal.appendVardict(entries, to: &iter)
    }
}

extension Marshal {
    static func outOfMemory() -> DBusError { DBusError(.noMemory, "out of memory while building a D-Bus message") }

    /// Appends `entries` as an `a{sv}` sorted by key; a basic value's variant opened with its
    /// type code for signature, any other checked (``DBusValue/validate()``) and written by
    /// ``append(_:to:)``; a value that is a variant is the entry's variant (``DBusValue/vardict(_:)``).
    static func appendVardict(_ entries: [String: DBusValue], to iter: inout DBusMessageIter) throws(DBusError) {
        var array = DBusMessageIter()
        guard dbus_message_iter_open_container(&iter, CDBUS_TYPE_ARRAY, "{sv}", &array) != 0 else { throw outOfMemory() }
        do throws(DBusError) {
            for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
                var entry = DBusMessageIter()
                guard dbus_message_iter_open_container(&array, CDBUS_TYPE_DICT_ENTRY, nil, &entry) != 0 else { throw outOfMemory() }
                do throws(DBusError) {
                    try appendText(key, code: CDBUS_TYPE_STRING, to: &entry)
                    // As `.vardict` makes it: the value in the entry's variant — a variant's content, for a value that is one.
                    let inner = if case .variant(let content) = value { content } else { value }
                    let code = inner.type.basicCode
                    if code == nil { try inner.validate() }
                    var variant = DBusMessageIter()
                    let opened: dbus_bool_t
                    if let code {
                        // A basic type's signature is its type code, one character.
                        var signature: (CChar, CChar) = (CChar(truncatingIfNeeded: code), 0)
                        opened = withUnsafePointer(to: &signature) {
                            $0.withMemoryRebound(to: CChar.self, capacity: 2) { dbus_message_iter_open_container(&entry, CDBUS_TYPE_VARIANT, $0, &variant) }
                        }
                    } else {
                        opened = inner.type.signature.withCString { dbus_message_iter_open_container(&entry, CDBUS_TYPE_VARIANT, $0, &variant) }
                    }
                    guard opened != 0 else { throw outOfMemory() }
                    do { try append(inner, to: &variant) } catch {
                        dbus_message_iter_abandon_container(&entry, &variant)
                        throw error
                    }
                    guard dbus_message_iter_close_container(&entry, &variant) != 0 else { throw outOfMemory() }
                } catch {
                    dbus_message_iter_abandon_container(&array, &entry)
                    throw error
                }
                guard dbus_message_iter_close_container(&array, &entry) != 0 else { throw outOfMemory() }
            }
        } catch {
            dbus_message_iter_abandon_container(&iter, &array)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &array) != 0 else { throw outOfMemory() }
    }
}

extension DBusType {
    /// The libdbus type code of a basic type; nil for a container or a variant.
    var basicCode: Int32? { isBasic ? code : nil }
}

/// A message built on the asking thread (``MessageWriter``) and sent by the loop thread: built,
/// it is only read (by `dbus_connection_send`), and each is sent once.
final class OutgoingMessage: @unchecked Sendable {
    let handle: OpaquePointer

    /// Takes over `handle`, a new message of ours (unreferenced when this goes).
    init(handle: OpaquePointer) { self.handle = handle }

    /// A signal from `path` (to `destination` alone, when given).
    convenience init(signalFrom path: ObjectPath, interface: InterfaceName, member: MemberName, destination: BusName?) throws(DBusError) {
        guard let m = CStringCalls.signal(path.rawValue, interface.rawValue, member.rawValue) else { throw Marshal.outOfMemory() }
        self.init(handle: m)
        if let destination, !CStringCalls.setDestination(m, destination.rawValue) { throw Marshal.outOfMemory() }
    }

    deinit { dbus_message_unref(handle) }
}

extension Connection {
    /// Emits a signal from `path` whose body `body` writes (``MessageWriter``), as
    /// ``emit(path:interface:member:_:destination:)`` does (the same order, the same checks, thrown
    /// here): for a sender that knows its body's shape, without a ``DBusValue`` per argument.
    public func emit(path: ObjectPath, interface: InterfaceName, member: MemberName, destination: BusName? = nil,
                     body: (inout MessageWriter) throws(DBusError) -> Void) throws(DBusError) {
        let message = try OutgoingMessage(signalFrom: path, interface: interface, member: member, destination: destination)
        var writer = MessageWriter(message: message.handle)
        try body(&writer)
        try submitOrThrow { [core] in core.send(message) }
    }
}

extension ConnectionCore {
    /// Sends a message built before. Loop thread only.
    func send(_ message: OutgoingMessage) {
        guard let conn, running else { return }
        dbus_connection_send(conn, message.handle, nil)
    }
}

extension MessageWriter {
    /// The wire bytes of a signal whose body `write` writes, serial 1 (for tests: the same
    /// signal's bytes from ``DBusValue``s come from ``wireForm(values:)``).
    static func wireForm(_ write: (inout MessageWriter) throws(DBusError) -> Void) throws(DBusError) -> [UInt8] {
        let message = try OutgoingMessage(signalFrom: "/test", interface: "org.example.Test", member: "Wire", destination: nil)
        var writer = MessageWriter(message: message.handle)
        try write(&writer)
        return try wireForm(of: message)
    }

    /// The wire bytes of `message`, serial 1 (for tests).
    static func wireForm(of message: OutgoingMessage) throws(DBusError) -> [UInt8] {
        dbus_message_set_serial(message.handle, 1)
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        guard dbus_message_marshal(message.handle, &buffer, &length) != 0, let buffer else { throw Marshal.outOfMemory() }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) }
    }

    /// The wire bytes of the same signal with `values` for body, validated and marshalled as
    /// ``Connection/emit(path:interface:member:_:destination:)`` does.
    static func wireForm(values: [DBusValue]) throws(DBusError) -> [UInt8] {
        for v in values { try v.validate() }
        return try wireForm { w throws(DBusError) in for v in values { try Marshal.append(v, to: &w.iter) } }
    }
}
