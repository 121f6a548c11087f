/// The secret a launched handler answers with: 256 bits from the kernel's CSPRNG
/// (`getrandom`, through the service's ``SecureRandomPool``), as 64 hex digits. Never logged, never in a signal.
public enum ReplyToken {
    public static func make() -> String {
        let bytes = SecureRandomPool.shared.bytes(32)
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
