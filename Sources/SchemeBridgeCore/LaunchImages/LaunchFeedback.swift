/// How a launch image is shown in the session the service runs in — the rule, in one place.
///
/// The splash helper (`schemebridge-splash`) is an X11 client. It is used whenever the session
/// has an X display (`DISPLAY`): an X server, or Xwayland under a Wayland compositor (GNOME, KDE
/// Plasma, weston and sway start one, on demand), where the compositor shows the splash like any
/// X11 window and its X11 window manager reports the app's window mapping as X would. A purely
/// Wayland session (`WAYLAND_DISPLAY` without `DISPLAY`) gets the notification fallback: a native
/// Wayland splash would need a client of `wlr-layer-shell` (not offered by GNOME) or a toplevel
/// the compositor places, decorates and stacks as it likes; and the service cannot see another
/// client's Wayland windows appear, so it could only take it down on a timeout. Without either,
/// the notification too (it is the only thing left); no notification server: nothing is shown.
/// Opening never depends on it.
public enum LaunchFeedback: Sendable, Equatable {
    /// The splash helper on the X display (an X server or Xwayland).
    case splash
    /// A freedesktop notification carrying the image, when a notification server is on the bus.
    case notification

    /// The kind of graphical session `environment` describes.
    public enum Session: String, Sendable, Equatable {
        /// `DISPLAY` only: an X11 session.
        case x11
        /// `WAYLAND_DISPLAY` and `DISPLAY`: a Wayland session with Xwayland.
        case xwayland
        /// `WAYLAND_DISPLAY` only: Wayland without Xwayland.
        case wayland
        /// Neither: no display (a console, ssh, a service without a session).
        case none

        /// The session `environment` describes (an empty variable counts as unset).
        public init(environment: [String: String]) {
            let x = !(environment["DISPLAY"] ?? "").isEmpty
            let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
            switch (x, wayland) {
            case (true, true): self = .xwayland
            case (true, false): self = .x11
            case (false, true): self = .wayland
            case (false, false): self = .none
            }
        }

        /// Whether X11 clients (the splash helper) can show windows.
        public var hasX: Bool { self == .x11 || self == .xwayland }
    }

    /// How images are shown in `environment`'s session: the splash when there is an X display
    /// (X11 or Xwayland) and the helper is installed, else the notification fallback.
    public static func mode(environment: [String: String], splashHelperInstalled: Bool) -> LaunchFeedback {
        Session(environment: environment).hasX && splashHelperInstalled ? .splash : .notification
    }
}
