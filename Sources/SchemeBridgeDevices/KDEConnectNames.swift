import DBus

/// The names of KDE Connect's D-Bus API (`kdeconnectd`, checked against Debian 12's 22.12.3
/// with `gdbus introspect`): the daemon object, one object per device, one per loaded plugin.
enum KDEConnectNames {
    static let busName: BusName = "org.kde.kdeconnect"
    static let daemonPath: ObjectPath = "/modules/kdeconnect"
    static let daemonInterface: InterfaceName = "org.kde.kdeconnect.daemon"
    static let deviceInterface: InterfaceName = "org.kde.kdeconnect.device"
    static let shareInterface: InterfaceName = "org.kde.kdeconnect.device.share"
    /// The share plugin's id in `loadedPlugins`.
    static let sharePlugin = "kdeconnect_share"
    /// The signal a received share comes with, from the sending device's share object.
    static let shareReceived: MemberName = "shareReceived"
    /// Signals after which the list of devices is read again (daemon and device objects).
    static let listSignals: Set<String> = [
        "deviceAdded", "deviceRemoved", "deviceVisibilityChanged", "deviceListChanged", "pairingRequestsChanged",
        "pluginsChanged", "reachableChanged", "trustedChanged", "nameChanged",
    ]
    /// The most devices read from one list (an engine with more is cut there).
    static let maximumDevices = 64

    /// `/modules/kdeconnect/devices/<id>` (`id` checked by `DeviceID.isValid`).
    static func devicePath(_ id: String) -> ObjectPath? {
        try? ObjectPath("/modules/kdeconnect/devices/\(id)")
    }

    /// The device id in a path `/modules/kdeconnect/devices/<id>[/…]`.
    static func deviceID(in path: ObjectPath?) -> String? {
        guard let parts = path?.rawValue.split(separator: "/"), parts.count >= 4,
              parts[0] == "modules", parts[1] == "kdeconnect", parts[2] == "devices" else { return nil }
        return String(parts[3])
    }
}
