import CDBus
import Glibc

/// libdbus's calls that take names, given Swift strings as C strings without copying them: a
/// `String` passed straight to a C parameter is copied into an array allocated for the call,
/// while `withCString` hands out a native string's own bytes (a small string's from the stack).
/// For what each message handled or sent names: its path, interface, member, destination.
enum CStringCalls {
    @inline(__always)
    static func with<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let text else { return body(nil) }
        return text.withCString { body($0) }
    }

    /// A new method call (nil: out of memory).
    static func methodCall(_ destination: String?, _ path: String, _ interface: String?, _ member: String) -> OpaquePointer? {
        with(destination) { d in with(path) { p in with(interface) { i in with(member) { dbus_message_new_method_call(d, p, i, $0) } } } }
    }

    /// A new signal (nil: out of memory).
    static func signal(_ path: String, _ interface: String, _ member: String) -> OpaquePointer? {
        with(path) { p in with(interface) { i in with(member) { dbus_message_new_signal(p, i, $0) } } }
    }

    /// Sets `m`'s destination; false when out of memory.
    @discardableResult
    static func setDestination(_ m: OpaquePointer, _ name: String) -> Bool {
        name.withCString { dbus_message_set_destination(m, $0) } != 0
    }

    /// Sets error message `m`'s error name; false when out of memory.
    @discardableResult
    static func setErrorName(_ m: OpaquePointer, _ name: String) -> Bool {
        name.withCString { dbus_message_set_error_name(m, $0) } != 0
    }

    /// Whether the C string `raw` holds `text`.
    @inline(__always)
    static func equal(_ raw: UnsafePointer<CChar>, _ text: String) -> Bool {
        text.withCString { strcmp(raw, $0) } == 0
    }
}
