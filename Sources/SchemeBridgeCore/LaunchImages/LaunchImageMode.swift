/// How a handler's launch image is shown: drawn by the `schemebridge-splash` helper on an X
/// display, else carried by a freedesktop notification (when a notification server is on the bus).
public enum LaunchImageMode: Equatable, Sendable {
    /// The splash helper at `helper` draws it.
    case splash(helper: String)
    /// A notification carries it.
    case notification

    /// The splash when the session has an X display (X11 or Xwayland) and the helper is installed
    /// (`helper`); else a notification: ``LaunchFeedback/mode(environment:splashHelperInstalled:)``.
    public static func choose(environment: [String: String], helper: String?) -> LaunchImageMode {
        switch LaunchFeedback.mode(environment: environment, splashHelperInstalled: helper != nil) {
        case .splash: return helper.map { .splash(helper: $0) } ?? .notification
        case .notification: return .notification
        }
    }
}
