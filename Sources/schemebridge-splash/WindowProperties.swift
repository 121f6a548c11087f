import CX11
import Glibc

/// Reading and writing window properties. Reads return nil when the property is missing, has
/// another type or format, or the window is gone (the error handler records the BadWindow).
enum WindowProperties {
    /// The raw items of a property of `format` (8 → bytes, 32 → `long`s as Xlib delivers them).
    private static func read(_ display: OpaquePointer, _ window: Window, _ property: Atom, type: Atom, format: Int32, maxItems: Int) -> [Int]? {
        var actualType: Atom = 0
        var actualFormat: Int32 = 0
        var count: UInt = 0
        var remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        let length = format == 8 ? (maxItems + 3) / 4 : maxItems
        let status = XGetWindowProperty(display, window, property, 0, length, 0, type,
                                        &actualType, &actualFormat, &count, &remaining, &data)
        defer { if let data { XFree(data) } }
        guard status == Success, let data, actualType == type || type == 0, actualFormat == format else { return nil }
        let n = Int(count)
        if format == 8 {
            return (0..<n).map { Int(data[$0]) }
        }
        return data.withMemoryRebound(to: Int.self, capacity: n) { longs in (0..<n).map { longs[$0] } }
    }

    /// A CARDINAL (format 32) property's first value.
    static func cardinal(_ display: OpaquePointer, _ window: Window, _ property: Atom) -> UInt32? {
        guard let values = read(display, window, property, type: Atom(XA_CARDINAL), format: 32, maxItems: 1), let v = values.first else { return nil }
        return UInt32(truncatingIfNeeded: v)
    }

    /// A WINDOW (format 32) property's first value.
    static func window(_ display: OpaquePointer, _ window: Window, _ property: Atom) -> Window? {
        guard let values = read(display, window, property, type: Atom(XA_WINDOW), format: 32, maxItems: 1), let v = values.first else { return nil }
        return Window(UInt(bitPattern: v))
    }

    /// A format-8 text property of `type` (UTF8_STRING or STRING), up to `maxBytes`.
    static func string(_ display: OpaquePointer, _ window: Window, _ property: Atom, type: Atom, maxBytes: Int = 4096) -> [UInt8]? {
        read(display, window, property, type: type, format: 8, maxItems: maxBytes).map { $0.map { UInt8(truncatingIfNeeded: $0) } }
    }

    /// Whether `property` exists on `window` (any type).
    static func exists(_ display: OpaquePointer, _ window: Window, _ property: Atom) -> Bool {
        var actualType: Atom = 0
        var actualFormat: Int32 = 0
        var count: UInt = 0
        var remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        let status = XGetWindowProperty(display, window, property, 0, 0, 0, 0,
                                        &actualType, &actualFormat, &count, &remaining, &data)
        if let data { XFree(data) }
        return status == Success && actualType != 0
    }

    /// WM_CLASS as (res_name, res_class).
    static func wmClass(_ display: OpaquePointer, _ window: Window) -> (name: String, class: String)? {
        guard let bytes = string(display, window, Atom(XA_WM_CLASS), type: Atom(XA_STRING), maxBytes: 1024) else { return nil }
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false)
        let name = parts.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let cls = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
        return (name, cls)
    }

    /// Replaces a format-32 property with `values`.
    static func set32(_ display: OpaquePointer, _ window: Window, _ property: Atom, type: Atom, _ values: [Int]) {
        values.withUnsafeBytes { raw in
            _ = XChangeProperty(display, window, property, type, 32, PropModeReplace,
                                raw.bindMemory(to: UInt8.self).baseAddress, Int32(values.count))
        }
    }

    /// Replaces a format-8 property with `bytes`.
    static func set8(_ display: OpaquePointer, _ window: Window, _ property: Atom, type: Atom, _ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            _ = XChangeProperty(display, window, property, type, 8, PropModeReplace, buffer.baseAddress, Int32(bytes.count))
        }
    }
}
