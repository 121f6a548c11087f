/// Which activation token a handler is started with after a chooser (issue 39): a token is the
/// caller's to spend once. When a chooser is shown, the caller's token goes to the chooser's window
/// (it takes the focus with it: under Wayland the compositor then forgets the token), so the app
/// the user chose must not be handed it again — it would be refused, or on X11 carry a time from
/// before the user chose. The shipped dialog obtains a fresh token when the user chooses (from the
/// compositor under Wayland, a startup id made from the choosing event's time under X11) and
/// answers it (`activation-token` of the dialogs' answer); that one is handed on.
extension SettledHandler {
    /// The token to start the handler with, given the caller's `callerToken`: the caller's when
    /// no chooser was shown (a named, remembered, routed or default handler); after a chooser,
    /// the fresh token the chooser answered, or none — never the caller's spent one.
    public func launchToken(callerToken: String?) -> String? {
        guard reason == nil else { return callerToken }
        return chooserToken.flatMap { ActivationToken.isValid($0) ? $0 : nil }
    }
}

extension ChooserAnswer {
    /// The fresh token a `picked` answer carries (nil for a cancel or a failure).
    public var launchToken: String? {
        if case .picked(_, _, let token) = self { return token }
        return nil
    }
}
