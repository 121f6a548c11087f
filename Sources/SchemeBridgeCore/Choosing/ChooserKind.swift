/// Which chooser asks the user, in order: `[Chooser] Command=`; a client of
/// `io.github.schemebridge.Chooser1`, only when the config names it (`Bus=true`: whoever owns
/// that name first would otherwise decide, and could answer "always" with no dialog) and one
/// owns the name or the bus can start it; else the shipped `schemebridge-dialog`.
public enum ChooserKind: Sendable, Equatable {
    /// The configured program and its arguments.
    case configured([String])
    /// A `Chooser1` client on the bus.
    case bus
    /// The shipped `schemebridge-dialog` (it needs a display and GTK 3 through python3-gi).
    case shipped
}

extension ChooserSettings {
    /// The chooser to ask with these settings; `busChooserAvailable` is asked only when
    /// `Bus=true` and no `Command=` is set.
    public func chooser(busChooserAvailable: () async -> Bool) async -> ChooserKind {
        if let command { return .configured(command) }
        if bus, await busChooserAvailable() { return .bus }
        return .shipped
    }
}
