import CX11
import Foundation

extension Xvfb {
    /// A window's property as text (an 8-bit property: `UTF8_STRING`, `STRING`), nil when unset.
    public func textProperty(_ name: String, of window: UInt) throws -> String? {
        try property(name, of: window, format: 8, longs: 4096) { data, count in
            String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
        }
    }

    /// A window's 32-bit property's first value (`_NET_WM_PID`), nil when unset.
    public func cardinalProperty(_ name: String, of window: UInt) throws -> Int? {
        try property(name, of: window, format: 32, longs: 1) { data, count in
            count >= 1 ? data.withMemoryRebound(to: Int.self, capacity: 1) { $0[0] } : nil
        } ?? nil
    }

    /// `read` over the property's data and item count, when it is set in `format`.
    private func property<T>(_ name: String, of window: UInt, format wanted: Int32, longs: Int,
                             _ read: (UnsafeMutablePointer<UInt8>, Int) -> T) throws -> T? {
        try withConnection { dpy in
            var type: Atom = 0, format: Int32 = 0, count: UInt = 0, after: UInt = 0
            var data: UnsafeMutablePointer<UInt8>?
            guard XGetWindowProperty(dpy, Window(window), XInternAtom(dpy, name, 0), 0, longs, 0, 0, &type, &format, &count, &after, &data) == Success,
                  let data else { return nil }
            defer { XFree(data) }
            return format == wanted ? read(data, Int(count)) : nil
        }
    }
}
