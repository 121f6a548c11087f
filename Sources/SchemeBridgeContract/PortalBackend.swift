import DBus

/// The xdg-desktop-portal backend interfaces SchemeBridge implements (issue 40), on its own bus
/// name at the portal's object: their names and their methods' argument lists, spelled once here
/// as ``ContractSignature`` spells SchemeBridge's own (the daemon's dispatch and introspection
/// are built on ``PortalSignature``). The argument lists are the portal's (`data/org.freedesktop.impl.portal.*.xml`
/// in xdg-desktop-portal, the same in 1.16 and current main); the caller is the portal frontend.
public enum PortalBackend {
    /// The object the frontend calls backends at.
    public static let objectPath: ObjectPath = "/org/freedesktop/portal/desktop"
    public static let appChooserInterface: InterfaceName = "org.freedesktop.impl.portal.AppChooser"
    public static let fileChooserInterface: InterfaceName = "org.freedesktop.impl.portal.FileChooser"
    /// The request object a backend exports at each call's `handle` while the call runs.
    public static let requestInterface: InterfaceName = "org.freedesktop.impl.portal.Request"
    /// The `ChooseApplication` options SchemeBridge reads (the others are skipped unread).
    public static let appChooserOptionKeys: Set<String> = ["content_type", "uri", "filename", "activation_token", "last_choice"]
}

/// The backend methods (``PortalBackend``), by interface.
public enum PortalSignature {
    private static let answer = [Argument("response", "u"), Argument("results", "a{sv}")]
    /// `FileChooser`'s three methods take the same arguments. Unchanged when handed on to the
    /// desktop's own backend: no option key is skipped, no string cut.
    private static let fileChooserInputs = [Argument("handle", "o"), Argument("app_id", "s"), Argument("parent_window", "s"),
                                            Argument("title", "s"), Argument("options", "a{sv}")]

    public static let chooseApplication = ContractSignature(
        PortalBackend.appChooserInterface, "ChooseApplication",
        in: [Argument("handle", "o"), Argument("app_id", "s", maxBytes: 255), Argument("parent_window", "s", maxBytes: 1024),
             Argument("choices", "as"), Argument("options", "a{sv}", keys: PortalBackend.appChooserOptionKeys)],
        out: answer)
    public static let updateChoices = ContractSignature(PortalBackend.appChooserInterface, "UpdateChoices",
                                                        in: [Argument("handle", "o"), Argument("choices", "as")])
    public static let openFile = ContractSignature(PortalBackend.fileChooserInterface, "OpenFile", in: fileChooserInputs, out: answer)
    public static let saveFile = ContractSignature(PortalBackend.fileChooserInterface, "SaveFile", in: fileChooserInputs, out: answer)
    public static let saveFiles = ContractSignature(PortalBackend.fileChooserInterface, "SaveFiles", in: fileChooserInputs, out: answer)
    public static let close = ContractSignature(PortalBackend.requestInterface, "Close")

    /// Every method above.
    public static let all: [ContractSignature] = [chooseApplication, updateChoices, openFile, saveFile, saveFiles, close]
}
