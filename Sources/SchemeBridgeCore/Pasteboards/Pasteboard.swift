import Glibc

/// One pasteboard: its name, owner, items, grants and lifetime. A value: the store keeps the
/// current one and hands out copies (``PasteboardStore``).
public struct Pasteboard: Sendable {
    /// One typed value of an item: in memory (a sealed memfd), or on disk after a restart until
    /// it is first read.
    public enum Stored: Sendable {
        case memory(SealedData)
        case disk(path: String, size: Int64)

        public var size: Int64 {
            switch self {
            case .memory(let data): return data.size
            case .disk(_, let size): return size
            }
        }

        /// What it costs the owner's quota (``SealedData/charge``; on disk, its size).
        public var charge: Int64 {
            switch self {
            case .memory(let data): return data.charge
            case .disk(_, let size): return size
            }
        }
    }

    /// One item: MIME type → data, in the order given.
    public typealias Item = [(type: String, data: Stored)]

    /// The id in its object path (32 hex digits, random).
    public let id: String
    public let name: String
    /// The owner's identity (stored as its text); nil for an unidentified creator (then only
    /// its connection owns it).
    public let ownerApp: CallerID?
    /// The connection that created it (nil after a restart).
    public var creatorBus: String?
    public let persistent: Bool
    /// When it expires, in seconds since the epoch (what is stored on disk).
    public var expires: Int64
    public var items: [Item] = []
    public var changeCount: UInt32 = 0
    public var grants: [AppIDPattern] = []
    public var launchGrants: [LaunchGrant] = []
    /// Connections that created it or used it and may still read it: who gets its signals.
    public var watchers: [String: Caller] = [:]
    /// Made by the service for a share (`Share1`'s data items), not by the owner itself: the first
    /// to make room when the owner is at its count of pasteboards (``PasteboardStore/create(name:persistent:expiresIn:caller:forShare:)``).
    public var madeForShare = false

    /// The key its quota is counted under (``PasteboardQuotaKey``).
    public var quotaKey: PasteboardQuotaKey { PasteboardQuotaKey(owner: ownerApp) }

    /// The bytes its items are charged (``Stored/charge``).
    public var bytes: Int64 { items.reduce(0) { $0 + $1.reduce(0) { $0 + $1.data.charge } } }

    /// What `caller` may do with it.
    public enum Access: Sendable, Equatable {
        /// Everything: write, grant, revoke, read, delete.
        case owner
        /// Read and delete.
        case reader
    }

    /// What `caller` may do: the owner is its creating connection or its owner app; readers are
    /// apps a grant names and handlers the broker launched with it. Nil: nothing, not even
    /// knowing it exists.
    public func access(for caller: Caller) -> Access? {
        if let creatorBus, creatorBus == caller.busName { return .owner }
        if let app = caller.id, app == ownerApp { return .owner }
        if let app = caller.id, grants.contains(where: { $0.matches(app) }) { return .reader }
        return launchGrantMatches(caller) ? .reader : nil
    }

    /// Whether `caller` is (or runs under) a handler the broker launched for this pasteboard.
    public func launchGrantMatches(_ caller: Caller) -> Bool {
        launchGrants.contains { grant in
            switch grant {
            case .process(let pid): return caller.lineage.contains(pid)
            case .connection(let name): return name == caller.busName
            }
        }
    }

    /// The types of each item.
    public var types: [[String]] { items.map { $0.map(\.type) } }

    /// The data of `type` in item `index`.
    public func data(item index: Int, type: String) throws(PasteboardError) -> Stored {
        guard items.indices.contains(index) else {
            throw PasteboardError(.noSuchType, "the pasteboard has \(items.count) item\(items.count == 1 ? "" : "s"); there is no item \(index)")
        }
        let wanted = type.lowercased()
        guard let found = items[index].first(where: { $0.type == wanted }) else {
            throw PasteboardError(.noSuchType, "item \(index) has no '\(type)' data (it has: \(items[index].map(\.type).joined(separator: ", ")))")
        }
        return found.data
    }
}

/// MIME type names as items use them: `type/subtype` of RFC 6838's restricted-name characters,
/// at most 255 bytes, kept in lower case (types compare case-insensitively).
public enum PasteboardType {
    public static func validated(_ text: String) throws(PasteboardError) -> String {
        let bytes = Array(text.utf8)
        let slash = bytes.firstIndex(of: UInt8(ascii: "/"))
        func isNameByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "!#$&^_.+-".utf8.contains(b)
        }
        guard bytes.count <= 255, let slash, slash > 0, slash < bytes.count - 1,
              bytes[..<slash].allSatisfy(isNameByte), bytes[(slash + 1)...].allSatisfy(isNameByte) else {
            throw PasteboardError(.invalidArgument, "'\(text.prefix(80))' is not a MIME type (type/subtype, e.g. text/plain)")
        }
        return text.lowercased()
    }
}
