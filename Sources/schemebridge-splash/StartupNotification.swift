import CX11

/// The freedesktop startup-notification protocol over X: messages such as
/// `new: ID="…" NAME=… SCREEN=0` or `remove: ID="…"` are sent as ClientMessage events of
/// format 8 to the root window (event mask PropertyChangeMask), the first 20 bytes with type
/// `_NET_STARTUP_INFO_BEGIN`, the rest 20 at a time with `_NET_STARTUP_INFO`, the message ending
/// with a NUL byte. The event's `window` field names the sender so receivers can tell
/// interleaved messages apart.
enum StartupNotification {
    /// A parsed message: its type (`new`, `change`, `remove`) and its key/value pairs.
    struct Message: Equatable {
        var type: String
        var fields: [String: String]
    }

    /// A value in the spec's quoting: double quotes, with `"` and `\` escaped by a backslash.
    static func quote(_ value: String) -> String {
        var out = "\""
        for ch in value {
            if ch == "\"" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out + "\""
    }

    /// Formats a message: `type: KEY=value KEY=value`, every value quoted.
    static func format(type: String, _ fields: [(String, String)]) -> String {
        type + ":" + fields.map { " \($0.0)=\(quote($0.1))" }.joined()
    }

    /// Parses a message; nil when it has no `type:` prefix. Values may be quoted or bare, with
    /// backslash escapes in either.
    static func parse(_ text: String) -> Message? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let type = String(text[..<colon]).trimmingSpaces()
        guard !type.isEmpty, !type.contains(" ") else { return nil }
        var fields: [String: String] = [:]
        var chars = Array(text[text.index(after: colon)...])
        chars.append(" ")
        var i = 0
        while i < chars.count {
            while i < chars.count && chars[i] == " " { i += 1 }
            guard i < chars.count else { break }
            var key = ""
            while i < chars.count && chars[i] != "=" && chars[i] != " " { key.append(chars[i]); i += 1 }
            guard i < chars.count, chars[i] == "=" else { continue }
            i += 1
            var value = ""
            var quoted = false
            while i < chars.count {
                let c = chars[i]
                if c == "\\" && i + 1 < chars.count {
                    value.append(chars[i + 1]); i += 2; continue
                }
                if c == "\"" { quoted.toggle(); i += 1; continue }
                if c == " " && !quoted { break }
                value.append(c); i += 1
            }
            if !key.isEmpty { fields[key] = value }
        }
        return Message(type: type, fields: fields)
    }

    /// Sends `message` to every client listening on the root window of `screen`.
    static func broadcast(_ message: String, display: OpaquePointer, root: Window, sender: Window, atoms: Atoms) {
        var bytes = Array(message.utf8)
        bytes.append(0)
        var offset = 0
        while offset < bytes.count {
            var event = XEvent()
            event.xclient.type = ClientMessage
            event.xclient.send_event = 1
            event.xclient.display = display
            event.xclient.window = sender
            event.xclient.message_type = offset == 0 ? atoms.netStartupInfoBegin : atoms.netStartupInfo
            event.xclient.format = 8
            withUnsafeMutableBytes(of: &event.xclient.data.b) { raw in
                for k in 0..<20 { raw[k] = offset + k < bytes.count ? bytes[offset + k] : 0 }
            }
            _ = XSendEvent(display, root, 0, PropertyChangeMask, &event)
            offset += 20
        }
    }

    /// Reassembles messages from ClientMessage chunks, per sender window.
    struct Assembler {
        private var partial: [Window: [UInt8]] = [:]
        /// Messages longer than this are dropped (the spec sets no limit; this bounds memory).
        static let maxBytes = 16 * 1024

        /// Feeds one event's chunk; returns the message it completes, if any.
        mutating func feed(sender: Window, begin: Bool, chunk: [UInt8]) -> String? {
            var buffer: [UInt8]
            if begin {
                buffer = []
            } else if let existing = partial[sender] {
                buffer = existing
            } else {
                return nil  // a continuation without a beginning (we started listening midway)
            }
            if let end = chunk.firstIndex(of: 0) {
                buffer.append(contentsOf: chunk[..<end])
                partial[sender] = nil
                return String(validating: buffer, as: UTF8.self)
            }
            buffer.append(contentsOf: chunk)
            partial[sender] = buffer.count > Self.maxBytes ? nil : buffer
            return nil
        }
    }
}

extension String {
    /// The string without leading and trailing spaces.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
