/// Desktop file IDs (Desktop Entry spec 1.5, "Desktop File ID").
///
/// The ID of `$dir/applications/foo/bar.desktop` is `foo-bar.desktop`: the path relative to the
/// applications directory with `/` replaced by `-`.
public enum DesktopID {
    /// The ID for a path relative to an applications directory (`vendor/app.desktop` →
    /// `vendor-app.desktop`).
    public static func make(relativePath: String) -> String {
        guard relativePath.utf8.contains(UInt8(ascii: "/")) else { return relativePath }
        return String(decoding: relativePath.utf8.map { $0 == UInt8(ascii: "/") ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
    }

    /// Whether `id` is a well-formed desktop ID as SchemeBridge accepts one from a caller or a
    /// `mimeapps.list`: ends in `.desktop` with a non-empty stem, at most 255 bytes, and contains
    /// no `/`, `;`, `=`, NUL or other control characters.
    public static func isValid(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard utf8.count > 8, utf8.count <= 255, id.hasSuffix(".desktop") else { return false }
        for b in utf8 {
            if b < 0x20 || b == 0x7F || b == UInt8(ascii: "/") || b == UInt8(ascii: ";") || b == UInt8(ascii: "=") {
                return false
            }
        }
        return true
    }

    /// The D-Bus well-known name of a `DBusActivatable` application: the ID without `.desktop`.
    public static func busName(_ id: String) -> String {
        String(id.dropLast(".desktop".count))
    }

    /// The object path of a `DBusActivatable` application: `/` + bus name with `.` → `/` and
    /// `-` → `_` (Desktop Entry spec, "D-Bus Activation").
    public static func objectPath(_ id: String) -> String {
        "/" + String(busName(id).map { $0 == "." ? "/" : ($0 == "-" ? "_" : $0) })
    }
}
