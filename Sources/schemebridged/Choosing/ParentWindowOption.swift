import DBus
import SchemeBridgeContract
import SchemeBridgeCore

/// Options with the `parent-window` of the methods that can show a dialog (`OpenURLWithOptions`,
/// `OpenURLWithReply`, `OpenFile`, `Share`, `PickDocument`), checked when the call comes in
/// (the core's ``ParentWindow``): a value of neither form is `InvalidArgs` at once, never a
/// dialog that fails later; a good one is carried in the form the dialogs' message takes.
protocol ParentWindowOption {
    init(decoding dict: [String: DBusValue]) throws(DBusError)
    var parentWindow: String? { get set }
}

extension ParentWindowOption {
    /// `dict` decoded, its `parent-window` checked and normalized (nil when absent or `""`).
    init(checking dict: [String: DBusValue]) throws {
        self = try Self(decoding: dict)
        parentWindow = try ParentWindow.normalized(parentWindow)
    }
}

extension OpenOptions: ParentWindowOption {}
extension ShareOptions: ParentWindowOption {}
extension PickOptions: ParentWindowOption {}
