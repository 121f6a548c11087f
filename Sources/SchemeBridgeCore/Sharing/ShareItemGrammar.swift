import LinuxSystem

/// The grammar of `Share`'s items (`aa{sv}`): each item is exactly one of `{type, data}`,
/// `{file}` or `{url}`, with an optional `name` and `title`; anything else is `InvalidArgs`
/// naming the item. The daemon reduces each entry's value to a ``Field`` (variants unwrapped)
/// and builds the item from the ``Item`` this returns; a file's type is detected afterwards.
public enum ShareItemGrammar {
    /// An entry's value, as far as the grammar tells values apart. `Descriptor` is the
    /// daemon's descriptor type.
    public enum Field<Descriptor: Sendable>: Sendable {
        case string(String)
        case bytes([UInt8])
        case descriptor(Descriptor)
        /// Any other value, by its D-Bus signature (for the message).
        case other(signature: String)
    }

    /// A well-formed item.
    public enum Item<Descriptor: Sendable>: Sendable {
        /// `{file: h}`: its type is detected from the descriptor.
        case file(Descriptor, name: String?)
        /// `{url: s}`: a valid URL.
        case url(String, name: String?)
        /// `{type: s, data: ay}`.
        case bytes([UInt8], type: ContentType, name: String?)
        /// `{type: s, data: h}`.
        case data(Descriptor, type: ContentType, name: String?)
    }

    /// The keys of an item, as the contract spells them (the daemon passes the contract's).
    public struct Keys: Sendable {
        public var file, url, type, data, name, title: String
        /// The keys spelled so.
        public init(file: String, url: String, type: String, data: String, name: String, title: String) {
            (self.file, self.url, self.type, self.data, self.name, self.title) = (file, url, type, data, name, title)
        }
    }

    /// Checks how many items one share holds: at least one, at most `maximum`.
    public static func checkCount(_ count: Int, maximum: Int) throws(ServiceFailure) {
        guard count > 0 else { throw ServiceFailure(.invalidArgument, "nothing to share: items is empty") }
        guard count <= maximum else { throw ServiceFailure(.invalidArgument, "\(count) items: one share holds at most \(maximum)") }
    }

    /// Item `i`, from its entries. A `name` is made safe (``ShareItemSummary/safeName(_:)``).
    /// (Inlinable, as the intake: specialized for the daemon's descriptor type where it is called.)
    @inlinable
    public static func item<D: Sendable>(_ i: Int, _ entries: [String: Field<D>], keys: Keys) throws(ServiceFailure) -> Item<D> {
        let (file, url, type, data) = (keys.file, keys.url, keys.type, keys.data)
        let name = try string(entries, keys.name, item: i).map(ShareItemSummary.safeName)
        _ = try string(entries, keys.title, item: i)
        // Which one of `file`, `url` and `data` the item holds (looked up once each, no array made).
        let (hasFile, hasURL, hasData) = (entries[file] != nil, entries[url] != nil, entries[data] != nil)
        switch (hasFile, hasURL, hasData) {
        case (true, false, false):
            guard case .descriptor(let fd)? = entries[file] else { throw invalid("item \(i): '\(file)' must be a file descriptor (h)") }
            guard entries[type] == nil else { throw invalid("item \(i): a file's type is detected; '\(type)' goes with '\(data)'") }
            return .file(fd, name: name)
        case (false, true, false):
            guard let text = try string(entries, url, item: i), entries[type] == nil else { throw invalid("item \(i): '\(url)' must be a string (s) alone") }
            do { _ = try SchemeURL(text) } catch { throw invalid("item \(i): '\(URLText.shortened(text))' is not a valid URL: \(error)") }
            return .url(text, name: name)
        case (false, false, true):
            guard let raw = try string(entries, type, item: i) else { throw invalid("item \(i): '\(data)' needs its content type in '\(type)' (s)") }
            let contentType: ContentType
            do { contentType = try ContentType(raw) } catch { throw invalid("item \(i): \(error.message)") }
            switch entries[data] {
            case .bytes(let b)?: return .bytes(b, type: contentType, name: name)
            case .descriptor(let fd)?: return .data(fd, type: contentType, name: name)
            default: throw invalid("item \(i): '\(data)' is a byte array (ay) or a file descriptor (h)")
            }
        default:
            throw invalid("item \(i) must hold exactly one of '\(file)' (h), '\(url)' (s) or '\(type)' (s) with '\(data)' (ay or h)")
        }
    }

    @usableFromInline
    static func invalid(_ message: String) -> ServiceFailure { ServiceFailure(.invalidArgument, message) }

    @inlinable
    static func string<D: Sendable>(_ entries: [String: Field<D>], _ key: String, item i: Int) throws(ServiceFailure) -> String? {
        guard let v = entries[key] else { return nil }
        guard case .string(let s) = v else { throw invalid("item \(i): '\(key)' must be a string (s), not '\(v.signature)'") }
        guard s.utf8.count <= SchemeURL.maximumByteCount else { throw invalid("item \(i): '\(key)' is longer than \(SchemeURL.maximumByteCount) bytes") }
        return s
    }
}

extension ShareItemGrammar.Field {
    /// The value's D-Bus signature.
    public var signature: String {
        switch self {
        case .string: "s"
        case .bytes: "ay"
        case .descriptor: "h"
        case .other(let signature): signature
        }
    }
}
