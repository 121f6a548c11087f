/// An edit of `mimeapps.list` by `schemebridge integrate` that is under way: written beside the
/// record (`integration.pending`) before the list is touched, and removed once the record says
/// what the list now holds. It keeps the list as it was (byte for byte, or that there was none),
/// the list as the edit leaves it, and the record that goes with that; so whatever stopped the
/// edit (SIGKILL, a full disk), the next look (``Integration``'s reconcile: at start, in status,
/// enable and disable) either finds the list untouched, or writes the record, or puts the list
/// back when the record cannot be written. Our lines are never in the list without a record.
///
/// The file is binary (a list may hold bytes that are not UTF-8): a header line, then
/// `before <count>|missing`, `after <count>|missing` and `record <count>` lines, each followed
/// by that many bytes.
struct IntegrationIntent: Equatable {
    /// The list before the edit; nil when there was none.
    var before: [UInt8]?
    /// The list the edit writes; nil when it removes the file.
    var after: [UInt8]?
    /// The record once the edit is done.
    var record: IntegrationState

    static let header = Array("schemebridge integration intent 1\n".utf8)

    /// The file's bytes.
    func encoded() -> [UInt8] {
        var out = Self.header
        func part(_ name: String, _ bytes: [UInt8]?) {
            guard let bytes else {
                out += Array("\(name) missing\n".utf8)
                return
            }
            out += Array("\(name) \(bytes.count)\n".utf8) + bytes
        }
        part("before", before)
        part("after", after)
        part("record", record.encoded())
        return out
    }

    /// Reads the file's bytes; nil when they are not an intent.
    static func decode(_ bytes: [UInt8], path: String) -> IntegrationIntent? {
        guard bytes.starts(with: header) else { return nil }
        var rest = bytes[header.count...]
        func part(_ name: String) -> [UInt8]?? {
            guard let newline = rest.firstIndex(of: 0x0A) else { return nil }
            let line = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
            rest = rest[(newline + 1)...]
            if line == "\(name) missing" { return .some(nil) }
            guard line.hasPrefix(name + " "), let count = Int(line.dropFirst(name.count + 1)), count >= 0, count <= rest.count else { return nil }
            let value = Array(rest.prefix(count))
            rest = rest.dropFirst(count)
            return .some(value)
        }
        guard let before = part("before"), let after = part("after"), let recordBytes = part("record"), let recordBytes, rest.isEmpty,
              let record = try? IntegrationState.decode(recordBytes, path: path) else { return nil }
        return IntegrationIntent(before: before, after: after, record: record)
    }
}
