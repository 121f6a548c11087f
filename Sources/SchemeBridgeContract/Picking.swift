import DBus

/// Picking a document that lives in another app (version 3): `PickDocument` on the main
/// interface, answered by the provider with `ProvideDocuments` (or `Reply(token, 1, {})`).
public enum PickContract {
    /// `PickDocument(as types, a{sv} options) → o request`.
    public static let pickDocument: MemberName = "PickDocument"
    /// `ProvideDocuments(s token, ah fds, a{sv} info)`: the launched provider answers.
    public static let provideDocuments: MemberName = "ProvideDocuments"
    /// The environment variable a spawned provider finds its pick token in.
    public static let tokenVariable = "SCHEMEBRIDGE_PICK_TOKEN"
    /// The `platform_data` key a D-Bus-activated provider finds its pick token under.
    public static let tokenPlatformKey = "pick-token"

    /// Keys of `ProvideDocuments`' `info`.
    public enum InfoKey {
        /// `names` (as): one name per descriptor (optional).
        public static let names = "names"
        /// `types` (as): one content type per descriptor (optional: detected otherwise).
        public static let types = "types"
        /// `activation-token` (s): handed to the caller in the Response.
        public static let activationToken = "activation-token"
        /// Every key the service reads.
        public static let all: Set<String> = [names, types, activationToken]
    }

    /// Keys of the Response's `results` for code 0.
    public enum ResultKey {
        /// `fds` (ah): read-only descriptors of sealed copies.
        public static let fds = "fds"
        /// `names` (as).
        public static let names = "names"
        /// `types` (as).
        public static let types = "types"
        /// `provider` (s): the desktop id that provided them ("Files…" is `io.github.schemebridge.Files.desktop`).
        public static let provider = "provider"
        /// `activation-token` (s): the provider's token, when it gave one.
        public static let activationToken = "activation-token"
    }

    /// The results of a pick's `Response(0)`: read-only descriptors of the copies, their names
    /// and types, the provider, and its activation token when it gave one.
    public static func results(fds: [UnixFD], names: [String], types: [String], provider: String, activationToken: String?) -> [String: DBusValue] {
        var results: [String: DBusValue] = [ResultKey.fds: .array(element: .unixFD, fds.map { .unixFD($0) }), ResultKey.names: .strings(names),
                                            ResultKey.types: .strings(types), ResultKey.provider: .string(provider)]
        if let activationToken, !activationToken.isEmpty { results[ResultKey.activationToken] = .string(activationToken) }
        return results
    }
}

/// The options of `PickDocument` (`a{sv}`), typed. Unknown keys are ignored.
public struct PickOptions: Sendable, Equatable {
    /// The option keys.
    public enum Key {
        /// `provider` (s): a provider's desktop id, skipping the sheet.
        public static let provider = "provider"
        /// `multiple` (b, default false): the caller takes more than one document.
        public static let multiple = "multiple"
        /// `title` (s): what the sheet and the file chooser say.
        public static let title = "title"
        /// `activation-token` (s): the sheet takes focus with it; handed to the provider.
        public static let activationToken = "activation-token"
        /// `parent-window` (s): the caller's window the sheet is attached to (`x11:XID`,
        /// `wayland:HANDLE`), as for `OpenURLWithOptions`.
        public static let parentWindow = "parent-window"
        /// Every key the service reads.
        public static let all: Set<String> = [provider, multiple, title, activationToken, parentWindow]
    }

    public var provider: String?
    public var multiple = false
    public var title: String?
    public var activationToken: String?
    /// The caller's window the sheet is attached to, as given (the service checks its form).
    public var parentWindow: String?

    public init(provider: String? = nil, multiple: Bool = false, title: String? = nil, activationToken: String? = nil) {
        self.provider = provider
        self.multiple = multiple
        self.title = title
        self.activationToken = activationToken
    }

    /// Decodes `dict`; a value of the wrong type is `InvalidArgs` naming the key. Empty strings
    /// count as absent.
    public init(decoding dict: [String: DBusValue]) throws(DBusError) {
        provider = try dict.contractText(Key.provider)
        title = try dict.contractText(Key.title)
        activationToken = try dict.contractText(Key.activationToken)
        multiple = try dict.contractBool(Key.multiple) ?? false
        parentWindow = try dict.contractText(Key.parentWindow)
    }

    /// The `a{sv}` form (only what is set).
    public var dictionary: [String: DBusValue] {
        var d: [String: DBusValue] = [:]
        if let provider { d[Key.provider] = .string(provider) }
        if multiple { d[Key.multiple] = .boolean(true) }
        if let title { d[Key.title] = .string(title) }
        if let activationToken { d[Key.activationToken] = .string(activationToken) }
        if let parentWindow { d[Key.parentWindow] = .string(parentWindow) }
        return d
    }
}

extension ContractCall where Result == ObjectPath {
    /// `PickDocument(as types, a{sv} options) → o`.
    public static func pickDocument(types: [String], options: PickOptions) -> Self {
        .single(ContractSignature.pickDocument, [.strings(types), .vardict(options.dictionary)]) { v in
            if case .objectPath(let p) = v { return p }
            return nil
        }
    }
}
