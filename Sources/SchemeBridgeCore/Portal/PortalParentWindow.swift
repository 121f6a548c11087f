/// The `parent_window` the portal frontend passes to a backend (issue 40): the sandboxed app's
/// window, as the app gave it to the portal (`x11:XID` in hexadecimal, `wayland:HANDLE`, or `""`).
/// SchemeBridge's dialog is attached to it, written as ``ParentWindow/value`` (the form the
/// `parent-window` option of SchemeBridge's own methods is normalised to).
///
/// Unlike that option, a value of neither form is no error here: the frontend passes on
/// whatever the app wrote, and refusing the app's open for it would be worse than what the
/// desktop's own backends do (they show the dialog without a parent). It is dropped, with a
/// warning for the log.
public enum PortalParentWindow {
    /// `text` normalised (nil: no parent), and why it was dropped when it was.
    public static func normalized(_ text: String) -> (value: String?, warning: String?) {
        do {
            return (try ParentWindow.normalized(text), nil)
        } catch {
            return (nil, "the portal's parent_window was dropped (the dialog shows without a parent): \(error.message)")
        }
    }
}
