import LinuxSystem

/// A `SetItems` being admitted, before its data is committed with
/// ``PasteboardStore/setItems(_:_:caller:)`` (which checks the owner and the quotas again, under
/// the store's lock). The rules of a write: at most `maximumItems` items of at most
/// `maximumTypesPerItem` types; only the owner writes; inline bytes at most `maximumInlineBytes`;
/// everything together within what the owner has left (``PasteboardStore/bytesLeft(for:replacing:)``).
/// Bytes and sealed memfds are taken at once (neither can block); any other descriptor is
/// copied by ``copy()``, which can block and belongs on a thread of its own.
public struct PasteboardWrite: Sendable {
    /// One value as sent. A descriptor must stay open until the write is committed (its owner
    /// keeps it; the write keeps a copy of the data, never the caller's descriptor).
    public enum Value: Sendable {
        case bytes([UInt8])
        case descriptor(Int32)
    }

    /// Per item, type → data; nil until a descriptor to copy is copied.
    private var items: [[(type: String, data: SealedData?)]]
    /// The descriptors to copy and where their data goes.
    private let copies: [(item: Int, value: Int, fd: Int32)]
    /// What is left of the owner's budget for the copies together.
    private let copyBudget: Int64

    /// Whether descriptors are left to ``copy()``.
    public var needsCopies: Bool { !copies.isEmpty }

    /// Checks the number of items sent (before they are decoded further).
    public static func check(itemCount: Int, limits: PasteboardLimits) throws(PasteboardError) {
        guard itemCount <= limits.maximumItems else {
            throw PasteboardError(.invalidArgument, "\(itemCount) items: a pasteboard holds at most \(limits.maximumItems)")
        }
    }

    /// Checks the number of types of item `index`.
    public static func check(typeCount: Int, item index: Int, limits: PasteboardLimits) throws(PasteboardError) {
        guard typeCount <= limits.maximumTypesPerItem else {
            throw PasteboardError(.invalidArgument, "item \(index) has \(typeCount) types; an item holds at most \(limits.maximumTypesPerItem)")
        }
    }

    /// Takes the bytes and sealed memfds of `values` within `budget` bytes, under `limits`.
    init(_ values: [[(type: String, value: Value)]], budget: Int64, limits: PasteboardLimits) throws(PasteboardError) {
        var left = budget
        var items: [[(type: String, data: SealedData?)]] = []
        var copies: [(item: Int, value: Int, fd: Int32)] = []
        for (i, item) in values.enumerated() {
            var taken: [(type: String, data: SealedData?)] = []
            for (type, value) in item {
                switch value {
                case .bytes(let bytes):
                    guard bytes.count <= limits.maximumInlineBytes else {
                        throw PasteboardError(.invalidArgument, "'\(type)' holds \(bytes.count) bytes as ay; send data over \(limits.maximumInlineBytes) bytes as a file descriptor (h)")
                    }
                    guard Int64(bytes.count) <= left else { throw SealedData.tooLarge(Int64(bytes.count), left) }
                    let data = try SealedData.make(bytes: bytes)
                    left -= data.charge
                    taken.append((type, data))
                case .descriptor(let fd):
                    if let data = try FileDescriptor.lending(fd, { d throws(PasteboardError) in try SealedData.adoptSealed(d, limit: left) }) {
                        left -= data.charge
                        taken.append((type, data))
                    } else {
                        copies.append((i, taken.count, fd))
                        taken.append((type, nil))
                    }
                }
            }
            items.append(taken)
        }
        self.items = items
        self.copies = copies
        self.copyBudget = left
    }

    /// Copies the descriptors that are not sealed memfds, within what is left of the budget.
    /// Blocking: run it on a descriptor thread.
    public mutating func copy() throws(PasteboardError) {
        var left = copyBudget
        for slot in copies {
            let data = try FileDescriptor.lending(slot.fd) { d throws(PasteboardError) in try SealedData.take(d, limit: left) }
            left -= data.charge
            items[slot.item][slot.value].data = data
        }
    }

    /// The items to commit, once every descriptor is copied.
    public var ready: [[(type: String, data: SealedData)]] {
        items.map { $0.map { (type: $0.type, data: $0.data!) } }
    }
}

extension PasteboardStore {
    /// Admits a write of `values` to pasteboard `id` by `caller`: its owner only, within the
    /// inline limit and what the owner has left. The data is committed with ``setItems(_:_:caller:)``
    /// after ``PasteboardWrite/copy()`` when ``PasteboardWrite/needsCopies``.
    public func beginWrite(_ id: String, _ values: [[(type: String, value: PasteboardWrite.Value)]],
                           caller: Caller) throws(PasteboardError) -> PasteboardWrite {
        let (_, access) = try board(id, caller: caller)
        guard access == .owner else { throw PasteboardError(.accessDenied, "only the pasteboard's owner may change its items") }
        return try PasteboardWrite(values, budget: bytesLeft(for: caller, replacing: id), limits: currentLimits)
    }
}
