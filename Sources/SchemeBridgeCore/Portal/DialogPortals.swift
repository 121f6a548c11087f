/// SchemeBridge's dialogs never ask a portal for themselves (issue 40): SchemeBridge may be the
/// portal's backend, and a dialog that asks the portal (for a file chooser, or GTK's settings)
/// while the portal waits on SchemeBridge's answer would wait for itself. The dialogs are GTK 3
/// (the shipped `schemebridge-dialog`, zenity): GTK 3 asks portals only inside a sandbox or with
/// `GTK_USE_PORTAL=1`, which some sessions set for every program; the dialogs run with
/// `GTK_USE_PORTAL=0`.
public enum DialogPortals {
    /// The variable, and the value that keeps GTK 3 off the portals.
    public static let variable = "GTK_USE_PORTAL"
    public static let off = "0"

    /// `base` with portals off for a dialog.
    public static func environment(_ base: [String: String]) -> [String: String] {
        var env = base
        env[variable] = off
        return env
    }
}
