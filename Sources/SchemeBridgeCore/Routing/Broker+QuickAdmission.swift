extension Broker {
    /// Whether admitting `url` with `handler` (the handler decided already; nil: the scheme's
    /// default) is quick: the chosen entry's file is checked with a `stat` (read again only when
    /// it changed) and its program looked up, as always, and nothing more — so a service may
    /// admit and spawn it on a thread that must not wait long (its D-Bus loop, as the C service
    /// does, issue 36).
    ///
    /// Not quick, while the registry is served from its on-disk index: an open that admission
    /// decides itself (a caller with preferences, an https link when app links are in use), and
    /// a URL that carries x-callback URLs (the caller's entry is looked up and its routes
    /// pinned). An entry in a directory the user's programs can write is quick: the entries it
    /// masks, which its check reads too, are in the index (version 8). Once the model is built
    /// every one of those is lookups in memory, and any open is quick.
    public func admitsQuickly(_ url: SchemeURL, handler: DesktopID?, caller: Caller) -> Bool {
        guard registry.isServedFromIndex else { return true }
        if handler == nil, decidesAtAdmission(url, caller: caller) { return false }
        if policy.current.callbacks, !XCallback.callbacks(in: url.string).isEmpty { return false }
        return true
    }
}
