/// The caller's window a dialog is attached to: the `parent-window` option of every method that
/// can show a dialog (docs/CONTRACT.md, "Attached to the caller's window"), written as portal
/// dialogs take their `parent_window`:
///
/// - `x11:XID` — an X11 window, its id in hexadecimal as portals write it (`x11:1a00003`; a `0x`
///   prefix is taken too); 1…0x1FFFFFFF (an X id has 29 bits).
/// - `wayland:HANDLE` — a handle the caller exported with xdg-foreign (`zxdg_exporter_v2` or `v1`):
///   1…256 printable ASCII characters, no spaces (compositors make a UUID or random letters).
/// - `""` — no parent (as portals take an empty string).
///
/// Anything else is refused with `InvalidArgs` naming the option and the two forms; a value that
/// has the form but names no window (a closed window, a handle the compositor never made) is the
/// dialog's to find out: it then shows without a parent, never fails for it.
public enum ParentWindow: Sendable, Equatable {
    case x11(UInt32)
    case wayland(String)

    /// The option's key.
    public static let key = "parent-window"
    /// The largest X id (29 bits).
    public static let maximumXID: UInt32 = 0x1FFF_FFFF
    /// The longest Wayland handle accepted, in bytes.
    public static let maximumHandleBytes = 256

    /// `text` read as a parent window; nil for `""` (no parent). Throws `InvalidArgs` for anything
    /// that is neither form.
    public static func parse(_ text: String) throws(OpenFailure) -> ParentWindow? {
        if text.isEmpty { return nil }
        if text.hasPrefix("x11:") {
            var digits = Substring(text.dropFirst(4))
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
            guard !digits.isEmpty, digits.utf8.count <= 8, digits.utf8.allSatisfy(Self.isHexDigit),
                  let id = UInt32(digits, radix: 16), id > 0, id <= maximumXID else {
                throw refusal(text, "an X11 window's id is 1 to 1fffffff, in hexadecimal")
            }
            return .x11(id)
        }
        if text.hasPrefix("wayland:") {
            let handle = String(text.dropFirst(8))
            guard !handle.isEmpty, handle.utf8.count <= maximumHandleBytes, handle.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw refusal(text, "an xdg-foreign handle is 1 to \(maximumHandleBytes) printable ASCII characters")
            }
            return .wayland(handle)
        }
        throw refusal(text, nil)
    }

    /// `text` checked and written as the dialog reads it (``value``); nil when absent or `""`.
    public static func normalized(_ text: String?) throws(OpenFailure) -> String? {
        guard let text else { return nil }
        return try parse(text)?.value
    }

    /// The form the dialogs' message carries: `x11:` and the id in lowercase hexadecimal (no
    /// `0x`), or `wayland:` and the handle as given.
    public var value: String {
        switch self {
        case .x11(let id): return "x11:" + String(id, radix: 16)
        case .wayland(let handle): return "wayland:" + handle
        }
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
    }

    private static func refusal(_ text: String, _ why: String?) -> OpenFailure {
        // The value quoted short and printable: it is the caller's, and goes into logs.
        var shown = String(String.UnicodeScalarView(text.unicodeScalars.prefix(60).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
        if text.unicodeScalars.count > 60 { shown += "…" }
        return OpenFailure(.invalidArgument, "option '\(key)' must be 'x11:XID' (the window's id in hexadecimal) or 'wayland:HANDLE' "
            + "(a handle exported with xdg-foreign), not '\(shown)'" + (why.map { ": \($0)" } ?? ""))
    }
}
