/// `Choices` and `ForgetChoice` as a caller may use them (``SandboxedCallerRule``): a sandboxed
/// app sees and forgets its own remembered choices only.
extension Broker {
    /// The remembered choices `caller` may see.
    public func visibleChoices(to caller: Caller) -> [Choice] {
        choices.all.filter { SandboxedCallerRule.maySeeChoices(of: $0.caller, by: caller) }
    }

    /// Forgets `choiceCaller`'s choice for `subject` for `caller` (`AccessDenied` for a sandboxed
    /// app's other than its own); whether there was one.
    public func forgetChoice(caller choiceCaller: CallerID, subject: String, by caller: Caller) async throws(ServiceFailure) -> Bool {
        guard SandboxedCallerRule.maySeeChoices(of: choiceCaller, by: caller) else {
            throw ServiceFailure(.accessDenied, "a sandboxed app (\(caller.displayName)) can forget its own choices only")
        }
        return try await forgetChoice(caller: choiceCaller, subject: subject)
    }
}
