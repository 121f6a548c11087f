/// The secret a launched handler answers with: 256 bits from the kernel's CSPRNG
/// (`getrandom`, through the service's ``SecureRandomPool``), as 64 hex digits. Never logged, never in a signal.
public enum ReplyToken {
    public static func make() -> String {
        let bytes = SecureRandomPool.shared.bytes(32)
        // Written straight into the string's storage: no digit table or byte array made per token.
        return String(unsafeUninitializedCapacity: 2 * bytes.count) { out in
            for (i, b) in bytes.enumerated() {
                out[2 * i] = hexDigit(b >> 4)
                out[2 * i + 1] = hexDigit(b & 0xF)
            }
            return 2 * bytes.count
        }
    }

    @inline(__always)
    private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x57 + v }  // "0"... / "a"...
}
