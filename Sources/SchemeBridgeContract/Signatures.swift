import DBus

/// A method of the contract as it is on the bus: its interface, name and argument lists, spelled
/// once — here. The daemon's dispatch and introspection are built on it (``DBus/Method/init(_:annotations:handler:)``:
/// an incoming call is checked against ``inputs``, the reply against ``outputs``), and a client's
/// ``ContractCall`` is made from it, its arguments' types checked against ``inputs``.
public struct ContractSignature: Sendable {
    /// The interface the method is on.
    public let interface: InterfaceName
    /// The method's name.
    public let name: MemberName
    /// Its arguments: names (introspection), types, the option keys read, the longest strings taken.
    public let inputs: [Argument]
    /// Its reply.
    public let outputs: [Argument]

    /// A method `name` of `interface`.
    public init(_ interface: InterfaceName, _ name: MemberName, in inputs: [Argument] = [], out outputs: [Argument] = []) {
        (self.interface, self.name, self.inputs, self.outputs) = (interface, name, inputs, outputs)
    }

    /// Whether `arguments` have the types of ``inputs``.
    public func accepts(_ arguments: [DBusValue]) -> Bool {
        arguments.map(\.type) == inputs.map(\.type)
    }
}

extension Method {
    /// The method `signature` describes, run by `handler`.
    public init(_ signature: ContractSignature, annotations: [(String, String)] = [], handler: MethodHandler) {
        self.init(signature.name, inputs: signature.inputs, outputs: signature.outputs, annotations: annotations, handler: handler)
    }

    /// The method `signature` describes, its arguments read by `decode` (``MessageReader``), run by `handler`.
    public init(_ signature: ContractSignature, annotations: [(String, String)] = [],
                decode: @escaping @Sendable (inout MessageReader) throws(DBusError) -> any Sendable, handler: MethodHandler) {
        self.init(signature.name, inputs: signature.inputs, outputs: signature.outputs, annotations: annotations, decode: decode, handler: handler)
    }
}

extension Contract {
    /// The longest URL a method takes, in bytes (the core's `SchemeURL.maximumByteCount`).
    public static let maximumURLBytes = 64 * 1024
    /// The longest scheme, content type or desktop id a method takes, in bytes.
    public static let maximumNameBytes = 4096
    /// The longest reply token, in bytes.
    public static let maximumTokenBytes = 256
    /// The longest pasteboard name or type, in bytes.
    public static let maximumPasteboardNameBytes = 255
}

/// Every method of the contract's interfaces, by interface.
extension ContractSignature {
    private static func main(_ name: MemberName, in inputs: [Argument] = [], out outputs: [Argument] = []) -> Self {
        Self(Contract.interface, name, in: inputs, out: outputs)
    }
    private static var url: Argument { Argument("url", "s", maxBytes: Contract.maximumURLBytes) }
    private static func name(_ n: String) -> Argument { Argument(n, "s", maxBytes: Contract.maximumNameBytes) }
    private static var openOptions: Argument { Argument("options", "a{sv}", keys: OpenOptions.Key.all) }

    // The main interface: opening and queries.
    public static let canOpenURL = main(ContractMethod.canOpenURL, in: [url], out: [Argument("can_open", "b")])
    public static let openURL = main(ContractMethod.openURL, in: [url], out: [Argument("opened", "b")])
    public static let openURLWithOptions = main(ContractMethod.openURLWithOptions, in: [url, openOptions], out: [Argument("results", "a{sv}")])
    public static let handlersForScheme = main(ContractMethod.handlersForScheme, in: [name("scheme")], out: [Argument("desktop_ids", "as")])
    public static let skippedHandlersForScheme = main(ContractMethod.skippedHandlersForScheme, in: [name("scheme")], out: [Argument("skipped", "a(sss)")])
    public static let displayNames = main(ContractMethod.displayNames, in: [Argument("desktop_ids", "as")], out: [Argument("names", "a{ss}")])
    public static let defaultHandler = main(ContractMethod.defaultHandler, in: [name("scheme")], out: [Argument("desktop_id", "s")])
    public static let setDefaultHandler = main(ContractMethod.setDefaultHandler, in: [name("scheme"), name("desktop_id")])
    public static let openURLWithReply = main(ContractMethod.openURLWithReply, in: [url, openOptions], out: [Argument("request", "o")])
    public static let reply = main(ContractMethod.reply, in: [Argument("token", "s", maxBytes: Contract.maximumTokenBytes), Argument("code", "u"),
                                                              Argument("results", "a{sv}")])
    public static let openFile = main(ContractMethod.openFile, in: [Argument("fd", "h"), openOptions], out: [Argument("results", "a{sv}")])
    public static let contentTypeForFile = main(ContractMethod.contentTypeForFile, in: [Argument("fd", "h"), name("name")], out: [Argument("content_type", "s")])
    public static let handlersForType = main(ContractMethod.handlersForType, in: [name("content_type")], out: [Argument("desktop_ids", "as")])
    public static let defaultHandlerForType = main(ContractMethod.defaultHandlerForType, in: [name("content_type")], out: [Argument("desktop_id", "s")])
    public static let defaultHandlerOrigin = main(ContractMethod.defaultHandlerOrigin, in: [name("subject")], out: [Argument("origin", "a{sv}")])
    public static let setDefaultHandlerForType = main(ContractMethod.setDefaultHandlerForType, in: [name("content_type"), name("desktop_id")])
    public static let launchImageForURL = main(ContractMethod.launchImageForURL, in: [url], out: [Argument("path", "s")])

    // The main interface: choices, routes, integration.
    public static let choices = main(ContractMethod.choices, out: [Argument("choices", "a(sss)")])
    public static let forgetChoice = main(ContractMethod.forgetChoice, in: [name("caller"), name("scheme_or_type")])
    public static let routes = main(ContractMethod.routes, out: [Argument("routes", "a(sss)")])
    public static let enableIntegration = main(ContractMethod.enableIntegration, in: [Argument("schemes", "as")], out: [Argument("routed", "as")])
    public static let disableIntegration = main(ContractMethod.disableIntegration, in: [Argument("schemes", "as")], out: [Argument("given_back", "as")])
    public static let integrationStatus = main(ContractMethod.integrationStatus, out: [Argument("status", "a{sv}")])

    // The main interface: app links (issue 41; ``AppLinkContract``).
    private static var host: Argument { Argument("host", "s", maxBytes: AppLinkContract.maximumHostBytes) }
    public static let resolveLink = main(AppLinkContract.resolveLink, in: [url], out: [Argument("link", "a{sv}")])
    public static let appLinks = main(AppLinkContract.appLinks, out: [Argument("links", "aa{sv}")])
    public static let verifyLinkHost = main(AppLinkContract.verifyLinkHost, in: [host], out: [Argument("evidence", "a{sv}")])
    public static let setLinkApp = main(AppLinkContract.setLinkApp, in: [host, name("desktop_id")])

    // The main interface: picking.
    public static let pickDocument = main(PickContract.pickDocument, in: [Argument("types", "as"), Argument("options", "a{sv}", keys: PickOptions.Key.all)],
                                          out: [Argument("request", "o")])
    public static let provideDocuments = main(PickContract.provideDocuments, in: [Argument("token", "s", maxBytes: Contract.maximumTokenBytes), Argument("fds", "ah"),
                                                                                  Argument("info", "a{sv}", keys: PickContract.InfoKey.all)])

    // Request1, on a request object.
    public static let close = Self(Contract.requestInterface, ContractMethod.close)

    // Share1.
    public static let share = Self(ShareContract.interface, ShareContract.share,
                                   in: [Argument("items", "aa{sv}"), Argument("options", "a{sv}", keys: ShareContract.OptionKey.all)], out: [Argument("request", "o")])
    public static let shareTargets = Self(ShareContract.interface, ShareContract.shareTargets, in: [Argument("types", "as")], out: [Argument("targets", "a(ssss)")])

    // Pasteboards1, on the main object; Pasteboard1, on each pasteboard.
    private static var pasteboardName: Argument { Argument("name", "s", maxBytes: Contract.maximumPasteboardNameBytes) }
    public static let createPasteboard = Self(Contract.pasteboardsInterface, ContractMethod.createPasteboard,
                                              in: [pasteboardName, Argument("options", "a{sv}", keys: PasteboardOptions.Key.all)],
                                              out: [Argument("pasteboard", "o"), Argument("name", "s")])
    public static let findPasteboard = Self(Contract.pasteboardsInterface, ContractMethod.findPasteboard, in: [pasteboardName], out: [Argument("pasteboard", "o")])
    public static let setItems = Self(Contract.pasteboardInterface, ContractMethod.setItems, in: [Argument("items", "aa{sv}")], out: [Argument("change_count", "u")])
    public static let types = Self(Contract.pasteboardInterface, ContractMethod.types, out: [Argument("types", "aas")])
    public static let read = Self(Contract.pasteboardInterface, ContractMethod.read,
                                  in: [Argument("item", "u"), Argument("type", "s", maxBytes: Contract.maximumPasteboardNameBytes)], out: [Argument("data", "h")])
    public static let readBytes = Self(Contract.pasteboardInterface, ContractMethod.readBytes,
                                       in: [Argument("item", "u"), Argument("type", "s", maxBytes: Contract.maximumPasteboardNameBytes)], out: [Argument("data", "ay")])
    public static let grant = Self(Contract.pasteboardInterface, ContractMethod.grant, in: [Argument("app_ids", "as")])
    public static let revoke = Self(Contract.pasteboardInterface, ContractMethod.revoke, in: [Argument("app_ids", "as")])
    public static let delete = Self(Contract.pasteboardInterface, ContractMethod.delete)

    /// Every method above.
    public static let all: [ContractSignature] = [
        canOpenURL, openURL, openURLWithOptions, handlersForScheme, skippedHandlersForScheme, displayNames, defaultHandler, setDefaultHandler,
        openURLWithReply, reply, openFile, contentTypeForFile, handlersForType, defaultHandlerForType, defaultHandlerOrigin, setDefaultHandlerForType,
        launchImageForURL, choices, forgetChoice, routes, enableIntegration, disableIntegration, integrationStatus,
        resolveLink, appLinks, verifyLinkHost, setLinkApp, pickDocument, provideDocuments,
        close, share, shareTargets, createPasteboard, findPasteboard, setItems, types, read, readBytes, grant, revoke, delete,
    ]
}
