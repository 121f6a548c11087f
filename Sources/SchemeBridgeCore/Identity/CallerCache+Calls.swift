/// How a service call meets the ``CallerCache``: the caller found by its bus name, identified
/// now (a call that may wait) or in the background (an answer given on the loop thread, which
/// cannot wait: the caller is known at its next call), and the sandboxed caller's refusals.
extension CallerCache {
    /// Identifies `sender` in the background, for its next call.
    public func identifyLater(_ sender: String) {
        Task { _ = await caller(sender) }
    }

    /// `sender` when it is identified already; else nil, and — when `needed` — it is identified
    /// in the background for its next call. No sender (a broadcast) is nil.
    public func cachedOrIdentifyLater(_ sender: String?, needed: Bool = true) -> Caller? {
        guard let sender else { return nil }
        if let known = cached(sender) { return known }
        if needed { identifyLater(sender) }
        return nil
    }

    /// `sender`, identified, when it may change what is the user's (``SandboxedCallerRule/checkAdminister(_:_:)``):
    /// `AccessDenied` for a sandboxed caller — `what` is done from outside the sandbox.
    public func administrator(_ sender: String, _ what: String) async throws(ServiceFailure) -> Caller {
        let caller = await caller(sender)
        try SandboxedCallerRule.checkAdminister(caller, what)
        return caller
    }

    /// `AccessDenied` when `sender` is sandboxed (``administrator(_:_:)``).
    public func refuseSandboxed(_ sender: String, _ what: String) async throws(ServiceFailure) {
        _ = try await administrator(sender, what)
    }
}
