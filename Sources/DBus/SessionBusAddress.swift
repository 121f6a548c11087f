import Glibc

extension Connection {
    /// The environment variables ``sessionBusAddress(in:)`` reads.
    public static let sessionBusEnvironment = ["DBUS_SESSION_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "XDG_RUNTIME_DIR"]

    /// The session bus address from an environment: `DBUS_SESSION_BUS_ADDRESS`, else
    /// `DBUS_STARTER_ADDRESS` when started by bus activation, else the socket
    /// `$XDG_RUNTIME_DIR/bus` when there is one (a systemd user session's bus, where GDBus and
    /// sd-bus look too), else nil.
    public static func sessionBusAddress(in environment: [String: String]) -> String? {
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DBUS_STARTER_ADDRESS"] {
            if let a = environment[key], !a.isEmpty { return a }
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        let path = (runtime.hasSuffix("/") ? runtime : runtime + "/") + "bus"
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=" + escapedAddressValue(path)
    }

    /// The session bus address of this process's environment (``sessionBusAddress(in:)`` over
    /// ``sessionBusEnvironment``): the one way the daemon, ``session(logger:)`` and the CLI find
    /// the session bus, so a program started without `DBUS_SESSION_BUS_ADDRESS` (by a shell or a
    /// service manager that does not set it) finds `$XDG_RUNTIME_DIR/bus` wherever it runs.
    public static func processSessionBusAddress() -> String? {
        var environment: [String: String] = [:]
        for key in sessionBusEnvironment {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        return sessionBusAddress(in: environment)
    }

    /// `value` escaped for a D-Bus address: the specification's optionally escaped bytes
    /// (`-`, `0-9`, `A-Z`, `a-z`, `_`, `/`, `.`, `*`) as they are, every other byte as `%XX`.
    public static func escapedAddressValue(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "*"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789abcdef".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
