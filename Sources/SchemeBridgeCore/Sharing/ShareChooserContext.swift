extension Array {
    /// The sheet's context for a share decided as `decision`: the question (the items' types, how
    /// many, the first items' previews, `activationToken`) and `parentWindow` when the sheet is
    /// asked; nothing when the target is decided already (the `target` option — a device among
    /// them — or a remembered or routed target), so a sheet that is never shown costs nothing: a
    /// preview looks at its file (`fstat`), which for a share that stays on the D-Bus loop thread
    /// would be a blocking call there.
    public func chooserContext<Held>(for decision: HandlerDecision, activationToken: String?, parentWindow: String?) -> ChooserContext
    where Element == SharedItem<Held> {
        guard case .ask = decision else { return ChooserContext() }
        return ChooserContext(share: shareQuestion(activationToken: activationToken), parentWindow: parentWindow)
    }
}
