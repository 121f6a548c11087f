import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// The `parent-window` option of the methods that can show a dialog (`OpenURLWithOptions`,
/// `OpenURLWithReply`, `OpenFile`, `Share`, `PickDocument`), checked when the call comes in
/// (the core's ``ParentWindow``): a value of neither form is `InvalidArgs` at once, never a
/// dialog that fails later; a good one is carried in the form the dialogs' message takes.
enum ParentWindowOption {
    /// `given` checked and normalized; nil when absent or `""`.
    static func checked(_ given: String?) throws -> String? {
        try ParentWindow.normalized(given)
    }
}

extension OpenOptions {
    /// `dict` decoded, its `parent-window` checked (``ParentWindowOption``).
    init(checking dict: [String: DBusValue]) throws {
        self = try OpenOptions(decoding: dict)
        parentWindow = try ParentWindowOption.checked(parentWindow)
    }
}

extension ShareOptions {
    /// `dict` decoded, its `parent-window` checked (``ParentWindowOption``).
    init(checking dict: [String: DBusValue]) throws {
        self = try ShareOptions(decoding: dict)
        parentWindow = try ParentWindowOption.checked(parentWindow)
    }
}

extension PickOptions {
    /// `dict` decoded, its `parent-window` checked (``ParentWindowOption``).
    init(checking dict: [String: DBusValue]) throws {
        self = try PickOptions(decoding: dict)
        parentWindow = try ParentWindowOption.checked(parentWindow)
    }
}
