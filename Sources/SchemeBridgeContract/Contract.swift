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
    /// The `Version` property's value: 2 since replies (version 2 additions are additive); 3 since
    /// broadcast `URLHandled`/`URLFailed` carry URLs without userinfo, query and fragment (the
    /// caller gets the full URL in a copy sent to it alone).
    public static let version: UInt32 = 3
    /// The interface of request objects (`OpenURLWithReply`).
    public static let requestInterface: InterfaceName = "io.github.schemebridge.Request1"
    /// Request objects live below this path: `…/request/<id>`.
    public static let requestPathPrefix = objectPath.rawValue + "/request"
    /// The interface of pasteboard creation and lookup, on ``objectPath`` (version 2).
    public static let pasteboardsInterface: InterfaceName = "io.github.schemebridge.Pasteboards1"
    /// The interface of each pasteboard's object (version 2).
    public static let pasteboardInterface: InterfaceName = "io.github.schemebridge.Pasteboard1"
    /// Pasteboard objects live below this path: `…/pasteboard/<id>`.
    public static let pasteboardPathPrefix = objectPath.rawValue + "/pasteboard"
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
    /// `SkippedHandlersForScheme(s scheme) → a(sss)`: the applications declaring the scheme that
    /// are not its handlers, as (desktop id, file, reason) (contract 3).
    public static let skippedHandlersForScheme: MemberName = "SkippedHandlersForScheme"
    /// `DisplayNames(as desktop_ids) → a{ss}`: the `Name` of each installed application among
    /// them (contract 3).
    public static let displayNames: MemberName = "DisplayNames"
    public static let defaultHandler: MemberName = "DefaultHandler"
    public static let setDefaultHandler: MemberName = "SetDefaultHandler"
    public static let launchImageForURL: MemberName = "LaunchImageForURL"
    /// `OpenURLWithReply(s, a{sv}) → o`: open, and get the handler's answer on a request object.
    public static let openURLWithReply: MemberName = "OpenURLWithReply"
    /// `Reply(s token, u code, a{sv} results)`: the launched handler answers.
    public static let reply: MemberName = "Reply"
    /// `Close()` on a request object: the caller gives up.
    public static let close: MemberName = "Close"

    /// `OpenFile(h fd, a{sv} options) → a{sv}`: open a document with the app for its type.
    public static let openFile: MemberName = "OpenFile"
    /// `ContentTypeForFile(h fd, s name) → s`.
    public static let contentTypeForFile: MemberName = "ContentTypeForFile"
    /// `HandlersForType(s type) → as`.
    public static let handlersForType: MemberName = "HandlersForType"
    /// `DefaultHandlerForType(s type) → s`.
    public static let defaultHandlerForType: MemberName = "DefaultHandlerForType"
    /// `SetDefaultHandlerForType(s type, s desktop_id)`.
    public static let setDefaultHandlerForType: MemberName = "SetDefaultHandlerForType"
    /// `DefaultHandlerOrigin(s subject) → a{sv}`: a scheme's or type's default and where it comes from (contract 3).
    public static let defaultHandlerOrigin: MemberName = "DefaultHandlerOrigin"

    /// `CreatePasteboard(s name, a{sv} options) → (o, s)` on ``Contract/pasteboardsInterface``.
    public static let createPasteboard: MemberName = "CreatePasteboard"
    /// `FindPasteboard(s name) → o` on ``Contract/pasteboardsInterface``.
    public static let findPasteboard: MemberName = "FindPasteboard"
    /// `SetItems(aa{sv}) → u` on a pasteboard.
    public static let setItems: MemberName = "SetItems"
    /// `Types() → aas` on a pasteboard.
    public static let types: MemberName = "Types"
    /// `Read(u item, s type) → h` on a pasteboard.
    public static let read: MemberName = "Read"
    /// `ReadBytes(u item, s type) → ay` on a pasteboard.
    public static let readBytes: MemberName = "ReadBytes"
    /// `Grant(as app_ids)` on a pasteboard.
    public static let grant: MemberName = "Grant"
    /// `Revoke(as app_ids)` on a pasteboard.
    public static let revoke: MemberName = "Revoke"
    /// `Delete()` on a pasteboard.
    public static let delete: MemberName = "Delete"
}

/// The codes of a `Response`.
public enum ReplyCode: UInt32, Sendable {
    case success = 0
    case cancelled = 1
    case failed = 2
}

/// The properties of ``Contract/interface``.
public enum ContractProperty {
    /// `Version` (u): the contract version served.
    public static let version: MemberName = "Version"
    /// `Schemes` (as): every scheme with a handler; emits `PropertiesChanged`.
    public static let schemes: MemberName = "Schemes"
    /// A pasteboard's `Name` (s).
    public static let name: MemberName = "Name"
    /// A pasteboard's `ChangeCount` (u): how many times `SetItems` replaced its items.
    public static let changeCount: MemberName = "ChangeCount"
    /// A pasteboard's `Persistent` (b).
    public static let persistent: MemberName = "Persistent"
}
