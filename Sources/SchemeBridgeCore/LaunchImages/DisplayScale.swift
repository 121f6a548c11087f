/// The integer display scale launch images are chosen for (`@2x` files at scale 2).
public enum DisplayScale {
    /// The largest scale considered.
    public static let maximum = 8

    /// The session's scale: `GDK_SCALE` (an integer), else `QT_SCALE_FACTOR` (rounded), else
    /// `Xft.dpi` / 96 (rounded) when `xftDPI` is known, else 1. Values outside 1...8 are clamped;
    /// unparsable ones are ignored.
    public static func from(environment: [String: String], xftDPI: Double? = nil) -> Int {
        if let s = set(by: environment) { return s }
        if let dpi = xftDPI, dpi.isFinite, dpi > 0 {
            return clamp(Int((dpi / 96).rounded()))
        }
        return 1
    }

    /// The scale `GDK_SCALE` or `QT_SCALE_FACTOR` sets, nil when neither does (then the
    /// display's `Xft.dpi` decides).
    public static func set(by environment: [String: String]) -> Int? {
        if let g = environment["GDK_SCALE"].flatMap({ Int($0.trimmingSpaces()) }), g >= 1 {
            return clamp(g)
        }
        if let q = environment["QT_SCALE_FACTOR"].flatMap({ Double($0.trimmingSpaces()) }), q.isFinite, q > 0 {
            return clamp(Int(q.rounded()))
        }
        return nil
    }

    /// `value` limited to 1...``maximum``.
    public static func clamp(_ value: Int) -> Int { min(max(value, 1), maximum) }
}
