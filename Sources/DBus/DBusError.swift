/// A D-Bus error: a name such as `org.freedesktop.DBus.Error.InvalidArgs` and a message a
/// person can act on. Thrown by calls that got an error reply, and thrown by exported
/// method handlers to send one.
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error's D-Bus name.
    public let name: ErrorName
    /// The human-readable message.
    public let message: String

    public init(_ name: ErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name.rawValue): \(message)" }
}

extension ErrorName {
    /// `org.freedesktop.DBus.Error.Failed`: a generic failure.
    public static let failed = ErrorName(unchecked: "org.freedesktop.DBus.Error.Failed")
    /// `org.freedesktop.DBus.Error.InvalidArgs`: wrong argument types or values.
    public static let invalidArgs = ErrorName(unchecked: "org.freedesktop.DBus.Error.InvalidArgs")
    /// `org.freedesktop.DBus.Error.UnknownMethod`.
    public static let unknownMethod = ErrorName(unchecked: "org.freedesktop.DBus.Error.UnknownMethod")
    /// `org.freedesktop.DBus.Error.UnknownObject`.
    public static let unknownObject = ErrorName(unchecked: "org.freedesktop.DBus.Error.UnknownObject")
    /// `org.freedesktop.DBus.Error.UnknownInterface`.
    public static let unknownInterface = ErrorName(unchecked: "org.freedesktop.DBus.Error.UnknownInterface")
    /// `org.freedesktop.DBus.Error.UnknownProperty`.
    public static let unknownProperty = ErrorName(unchecked: "org.freedesktop.DBus.Error.UnknownProperty")
    /// `org.freedesktop.DBus.Error.PropertyReadOnly`.
    public static let propertyReadOnly = ErrorName(unchecked: "org.freedesktop.DBus.Error.PropertyReadOnly")
    /// `org.freedesktop.DBus.Error.NoReply`: the call timed out.
    public static let noReply = ErrorName(unchecked: "org.freedesktop.DBus.Error.NoReply")
    /// `org.freedesktop.DBus.Error.Disconnected`: the connection is closed.
    public static let disconnected = ErrorName(unchecked: "org.freedesktop.DBus.Error.Disconnected")
    /// `org.freedesktop.DBus.Error.NoMemory`.
    public static let noMemory = ErrorName(unchecked: "org.freedesktop.DBus.Error.NoMemory")
    /// `org.freedesktop.DBus.Error.AccessDenied`.
    public static let accessDenied = ErrorName(unchecked: "org.freedesktop.DBus.Error.AccessDenied")
    /// `org.freedesktop.DBus.Error.LimitsExceeded`: more than the method handles.
    public static let limitsExceeded = ErrorName(unchecked: "org.freedesktop.DBus.Error.LimitsExceeded")
    /// `org.freedesktop.DBus.Error.ServiceUnknown`.
    public static let serviceUnknown = ErrorName(unchecked: "org.freedesktop.DBus.Error.ServiceUnknown")
    /// `org.freedesktop.DBus.Error.NameHasNoOwner`.
    public static let nameHasNoOwner = ErrorName(unchecked: "org.freedesktop.DBus.Error.NameHasNoOwner")
}

/// An error type that knows its D-Bus form. Throw such errors from method handlers and
/// the caller receives ``dbusError``'s name and message. Any other error thrown by a
/// handler is sent as `org.freedesktop.DBus.Error.Failed` with its description.
public protocol DBusErrorConvertible: Error {
    /// The D-Bus error to send for this error.
    var dbusError: DBusError { get }
}

extension DBusError: DBusErrorConvertible {
    public var dbusError: DBusError { self }
}

extension InvalidNameError: DBusErrorConvertible {
    public var dbusError: DBusError { DBusError(.invalidArgs, description) }
}

extension DBusError {
    /// The D-Bus form of any error.
    public static func from(_ error: any Error) -> DBusError {
        if let convertible = error as? any DBusErrorConvertible { return convertible.dbusError }
        return DBusError(.failed, String(describing: error))
    }
}

/// Matches an error by its D-Bus name, so a `catch` can name it:
/// `catch ErrorName.invalidArgs { … }`. Any ``DBusErrorConvertible`` error matches by the
/// name it would be sent with.
public func ~= (pattern: ErrorName, error: any Error) -> Bool {
    (error as? any DBusErrorConvertible)?.dbusError.name == pattern
}

/// Matches a ``DBusError`` by name (for typed `throws(DBusError)` code and `switch`).
public func ~= (pattern: ErrorName, error: DBusError) -> Bool { error.name == pattern }
