import DBus
import SchemeBridgeCore

/// The names of GSConnect's D-Bus API (Debian 12's `gnome-shell-extension-gsconnect` 54, read
/// from its `service/daemon.js`, `service/manager.js`, `service/device.js`,
/// `service/plugins/share.js` and checked against the running service): the service is a
/// GApplication owning `org.gnome.Shell.Extensions.GSConnect`; an ObjectManager at the
/// application's path lists one object per known device, with the `…GSConnect.Device`
/// interface (`Connected`, `Paired`, `Name`, …) and the device's GActions exported beside it
/// (`org.gtk.Actions`). The share plugin's actions are enabled while the device is connected,
/// paired and able to take `kdeconnect.share.request`.
enum GSConnectNames {
    static let busName: BusName = "org.gnome.Shell.Extensions.GSConnect"
    /// The application's path: the ObjectManager, and the app-level actions.
    static let servicePath: ObjectPath = "/org/gnome/Shell/Extensions/GSConnect"
    static let objectManager: InterfaceName = "org.freedesktop.DBus.ObjectManager"
    static let deviceInterface: InterfaceName = "org.gnome.Shell.Extensions.GSConnect.Device"
    static let actionsInterface: InterfaceName = "org.gtk.Actions"
    /// A device's objects: `<devicePrefix><id with every run of non-word characters as "_">`.
    static let devicePrefix = "/org/gnome/Shell/Extensions/GSConnect/Device/"

    /// `shareFile(sb)`: a path or URI, and whether the device opens it when done.
    static let shareFile = "shareFile"
    /// `shareText(s)`.
    static let shareText = "shareText"
    /// `shareUri(s)`: the device opens the URI (a `file:` URI is sent as a file).
    static let shareUri = "shareUri"
    /// The share actions whose enabled state is followed.
    static let shareActions: Set<String> = [shareFile, shareText, shareUri]

    /// Signals after which the list of devices is read again: the ObjectManager's, a device's
    /// properties, a device's actions (`org.gtk.Actions.Changed`: added, removed, enabled).
    static let listSignals: Set<String> = ["InterfacesAdded", "InterfacesRemoved", "PropertiesChanged", "Changed"]
    /// The most devices read from one list (an engine with more is cut there).
    static let maximumDevices = 64

    /// The device id in a device object's path: its last element (GSConnect's own command line
    /// maps ids to paths the same way), when it is a well-formed ``DeviceID``.
    static func deviceID(in path: String) -> String? {
        guard path.hasPrefix(devicePrefix) else { return nil }
        let id = String(path.dropFirst(devicePrefix.count))
        return DeviceID.isValid(id) ? id : nil
    }

    /// The device object of `id` (checked by `DeviceID.isValid`).
    static func devicePath(_ id: String) -> ObjectPath? {
        DeviceID.isValid(id) ? try? ObjectPath(devicePrefix + id) : nil
    }
}
