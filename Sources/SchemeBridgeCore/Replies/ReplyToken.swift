import CLinux
import Glibc

/// The secret a launched handler answers with: 256 bits from the kernel's CSPRNG
/// (`getrandom`), as 64 hex digits. Never logged, never in a signal.
public enum ReplyToken {
    public static func make() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { clinux_getrandom($0.baseAddress! + filled, UInt($0.count - filled)) }
            if n < 0 {
                if errno == EINTR { continue }
                preconditionFailure("getrandom failed: \(errno)")   // the kernel always has entropy after boot
            }
            filled += Int(n)
        }
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
