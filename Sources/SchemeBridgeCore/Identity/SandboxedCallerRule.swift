/// What a sandboxed (Flatpak) caller may learn and change: what its own calls need, nothing
/// about other apps.
///
/// It opens URLs and documents, replies, and uses its pasteboards as any caller does. Its
/// queries about schemes are answered under query privacy whatever the config says (only the
/// schemes its own entry declares in `X-SchemeBridge-QueriesSchemes=`); it learns no handlers
/// of content types; `ShareTargets` names no app or device to it (it shares through the sheet,
/// which shows the user the targets outside the sandbox, or to a target it names); it sees and
/// forgets only its own remembered choices; it cannot read the
/// config's routes, set defaults, or turn integration on or off (those are the user's, done from
/// outside the sandbox). Being sandboxed is read from the caller's `/.flatpak-info`, which a
/// program outside a sandbox can forge: the rule only ever takes away, so a forger restricts
/// itself and gains nothing.
public enum SandboxedCallerRule {
    /// Whether `caller` may change the user's defaults, routes or integration, or read the routes.
    public static func mayAdminister(_ caller: Caller) -> Bool { !caller.sandboxed }

    /// `AccessDenied` unless `caller` may administer (``mayAdminister(_:)``): `what` is the
    /// user's to do, from outside the sandbox.
    public static func checkAdminister(_ caller: Caller, _ what: String) throws(ServiceFailure) {
        guard mayAdminister(caller) else { throw ServiceFailure(.accessDenied, "a sandboxed app (\(caller.displayName)) cannot \(what)") }
    }

    /// Whether `caller` may learn the handlers of content types.
    public static func mayListTypeHandlers(_ caller: Caller) -> Bool { !caller.sandboxed }

    /// Whether `caller` may see or forget the remembered choices of `choiceCaller` (an app id).
    public static func maySeeChoices(of choiceCaller: CallerID, by caller: Caller) -> Bool {
        !caller.sandboxed || caller.id == choiceCaller
    }

    /// The share targets `caller` is told of (`ShareTargets`): every one, or for a sandboxed
    /// caller only the built-ins that name no app and no device ("Copy", "Save to…").
    public static func visibleShareTargets(_ targets: [ShareTarget], to caller: Caller) -> [ShareTarget] {
        guard caller.sandboxed else { return targets }
        return targets.filter { target in
            switch ShareTargetID(target.id) {
            case .copy?, .save?: return true
            default: return false
            }
        }
    }
}
