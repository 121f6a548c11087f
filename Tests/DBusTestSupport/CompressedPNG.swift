/// PNG files for limit tests, written by Debian's python (zlib): one grey, fully decodable,
/// tiny on disk however large they are decoded.
public enum CompressedPNG {
    /// Writes an RGBA PNG of `width`×`height` with `depth` (8 or 16) bits per channel.
    public static func write(_ path: String, width: Int, height: Int, depth: Int = 8) async throws {
        let script = """
            import struct, sys, zlib
            w, h, d, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
            def chunk(t, b): return struct.pack('>I', len(b)) + t + b + struct.pack('>I', zlib.crc32(t + b) & 0xffffffff)
            raw = (b'\\0' + b'\\x80' * (w * 4 * d // 8)) * h
            with open(path, 'wb') as f:
                f.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, d, 6, 0, 0, 0))
                        + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
            """
        let r = try await Tools.run([Tools.systemPython, "-c", script, String(width), String(height), String(depth), path])
        if r.status != 0 { throw ToolError("cannot write \(path): \(r.stderr)") }
    }
}
