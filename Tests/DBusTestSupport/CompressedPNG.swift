/// PNG files for limit tests, written by Debian's python (zlib, `Scripts/compressed-png.py`):
/// one grey, fully decodable, tiny on disk however large they are decoded.
public enum CompressedPNG {
    /// Writes an RGBA PNG of `width`×`height` with `depth` (8 or 16) bits per channel.
    public static func write(_ path: String, width: Int, height: Int, depth: Int = 8) async throws {
        let script = ClientFolder("Tests/DBusTestSupport/Scripts")
        let r = try await Tools.run(script.command("compressed-png", [String(width), String(height), String(depth), path]))
        if r.status != 0 { throw ToolError("cannot write \(path): \(r.stderr)") }
    }
}
