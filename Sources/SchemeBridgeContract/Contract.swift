import DBus

/// The names of the SchemeBridge D-Bus contract (docs/CONTRACT.md). Everything
/// that talks to the service — the daemon, the CLI, the benchmarks and the tests — takes the
/// bus name, object path and interface from here; they are spelled in this file only.
public enum Contract {
    /// The well-known bus name the service owns.
    public static let busName: BusName = "io.github.schemebridge.SchemeBridge1"
    /// The service's one object.
    public static let objectPath: ObjectPath = "/io/github/schemebridge/SchemeBridge1"
    /// The main interface on ``objectPath``.
    public static let interface: InterfaceName = "io.github.schemebridge.SchemeBridge1"
    /// The `Version` property's value.
    public static let version: UInt32 = 1
    /// The prefix of every contract error name (`…SchemeBridge1.Error.NoHandler`).
    public static let errorPrefix = interface.rawValue + ".Error."
    /// SchemeBridge's own desktop entry (`desktop/`): `Exec=schemebridge open %u`. Never a
    /// handler, so the service never routes a URL back to itself.
    public static let ownDesktopID = "io.github.schemebridge.SchemeBridge.desktop"
    /// The bus-activation file's name in `dbus/` and `$XDG_DATA_DIRS/dbus-1/services/`.
    public static let serviceFileName = busName.rawValue + ".service"
    /// The introspection XML's name in `dbus/` and `$XDG_DATA_DIRS/dbus-1/interfaces/`.
    public static let introspectionFileName = interface.rawValue + ".xml"
}

/// The methods of ``Contract/interface``.
public enum ContractMethod {
    public static let canOpenURL: MemberName = "CanOpenURL"
    public static let openURL: MemberName = "OpenURL"
    public static let openURLWithOptions: MemberName = "OpenURLWithOptions"
    public static let handlersForScheme: MemberName = "HandlersForScheme"
    public static let defaultHandler: MemberName = "DefaultHandler"
    public static let setDefaultHandler: MemberName = "SetDefaultHandler"
    public static let launchImageForURL: MemberName = "LaunchImageForURL"
}

/// The properties of ``Contract/interface``.
public enum ContractProperty {
    /// `Version` (u): the contract version served.
    public static let version: MemberName = "Version"
    /// `Schemes` (as): every scheme with a handler; emits `PropertiesChanged`.
    public static let schemes: MemberName = "Schemes"
}
