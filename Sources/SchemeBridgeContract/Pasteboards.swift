import DBus

/// The options of `CreatePasteboard` (`a{sv}`), typed. Unknown keys are ignored.
public struct PasteboardOptions: Sendable, Equatable {
    /// The option keys.
    public enum Key {
        /// `persistent` (b, default false): stored on disk, survives the service's restart.
        public static let persistent = "persistent"
        /// `expires-in` (t or u): seconds until the pasteboard and its data are deleted.
        public static let expiresIn = "expires-in"
        /// Every key the service reads.
        public static let all: Set<String> = [persistent, expiresIn]
    }

    public var persistent = false
    /// Seconds until it expires; nil for the service's default.
    public var expiresIn: UInt64?

    public init(persistent: Bool = false, expiresIn: UInt64? = nil) {
        self.persistent = persistent
        self.expiresIn = expiresIn
    }

    /// Decodes `dict`; a value of the wrong type is `InvalidArgs` naming the key.
    public init(decoding dict: [String: DBusValue]) throws(DBusError) {
        if let v = dict[Key.persistent]?.unwrapped {
            guard case .boolean(let b) = v else { throw OpenOptions.wrongType(Key.persistent, "a boolean (b)", v) }
            persistent = b
        }
        if let v = dict[Key.expiresIn]?.unwrapped {
            guard let n = v.integer, n > 0 else { throw OpenOptions.wrongType(Key.expiresIn, "a positive number of seconds (t)", v) }
            expiresIn = UInt64(n)
        }
    }

    /// The `a{sv}` form (only what is set).
    public var dictionary: [String: DBusValue] {
        var d: [String: DBusValue] = [:]
        if persistent { d[Key.persistent] = .boolean(true) }
        if let expiresIn { d[Key.expiresIn] = .uint64(expiresIn) }
        return d
    }
}

/// `Changed(u change_count)` on a pasteboard: its items were replaced. Sent to its owner and
/// grantees only.
public struct PasteboardChanged: ContractSignal, Equatable {
    public static let interface = Contract.pasteboardInterface
    public static let member: MemberName = "Changed"
    public static let declaredArguments = [Argument("change_count", "u")]

    public var changeCount: UInt32

    public init(changeCount: UInt32) { self.changeCount = changeCount }

    public init?(arguments a: [DBusValue]) {
        guard a.count == 1, case .uint32(let n) = a[0] else { return nil }
        changeCount = n
    }

    public var arguments: [DBusValue] { [.uint32(changeCount)] }
}

/// `Deleted()` on a pasteboard: it was deleted or expired. Sent to its owner and grantees only.
public struct PasteboardDeleted: ContractSignal, Equatable {
    public static let interface = Contract.pasteboardInterface
    public static let member: MemberName = "Deleted"
    public static let declaredArguments: [Argument] = []

    public init() {}

    public init?(arguments a: [DBusValue]) {
        guard a.isEmpty else { return nil }
    }

    public var arguments: [DBusValue] { [] }
}

/// One value of a pasteboard item: bytes in the message, or a file descriptor for large data.
public enum PasteboardData: Sendable {
    case bytes([UInt8])
    case descriptor(UnixFD)

    var value: DBusValue {
        switch self {
        case .bytes(let b): return .bytes(b)
        case .descriptor(let fd): return .unixFD(fd)
        }
    }
}

extension ContractCall where Result == (ObjectPath, String) {
    /// `CreatePasteboard(s name, a{sv} options) → (o, s)`; "" makes a unique name.
    public static func createPasteboard(_ name: String, options: PasteboardOptions) -> Self {
        ContractCall(ContractSignature.createPasteboard, [.string(name), .vardict(options.dictionary)]) { reply throws(DBusError) in
            guard reply.count == 2, case .objectPath(let path) = reply[0], case .string(let name) = reply[1] else {
                throw unexpected(ContractMethod.createPasteboard, reply)
            }
            return (path, name)
        }
    }
}

extension ContractCall where Result == ObjectPath {
    /// `FindPasteboard(s name) → o`.
    public static func findPasteboard(_ name: String) -> Self {
        .single(ContractSignature.findPasteboard, [.string(name)]) { v in
            if case .objectPath(let p) = v { return p }
            return nil
        }
    }
}

extension ContractCall where Result == UInt32 {
    /// `SetItems(aa{sv}) → u` on the pasteboard at `path` (each item's types in key order).
    public static func setItems(_ items: [[String: PasteboardData]], at path: ObjectPath) -> Self {
        setItems(items.map { $0.sorted { $0.key < $1.key }.map { (type: $0.key, data: $0.value) } }, at: path)
    }

    /// `SetItems(aa{sv}) → u` on the pasteboard at `path`, each item's types in the order given:
    /// the service keeps it (`Types` lists them so, and a reader takes the first by default).
    public static func setItems(_ items: [[(type: String, data: PasteboardData)]], at path: ObjectPath) -> Self {
        let value = DBusValue.array(element: .dictionary(key: .string, value: .variant), items.map { item in
            .dictionary(key: .string, value: .variant, item.map { DictEntry(.string($0.type), .variant($0.data.value)) })
        })
        return .single(ContractSignature.setItems, [value], path: path) { v in
            if case .uint32(let n) = v { return n }
            return nil
        }
    }
}

extension ContractCall where Result == [[String]] {
    /// `Types() → aas` on the pasteboard at `path`.
    public static func pasteboardTypes(at path: ObjectPath) -> Self {
        .single(ContractSignature.types, [], path: path) { v in
            guard let items = v.arrayElements else { return nil }
            let types = items.map { $0.arrayElements?.compactMap(\.string) }
            return types.contains { $0 == nil } ? nil : types.map { $0! }
        }
    }
}

extension ContractCall where Result == UnixFD {
    /// `Read(u item, s type) → h` on the pasteboard at `path`.
    public static func read(item: UInt32, type: String, at path: ObjectPath) -> Self {
        .single(ContractSignature.read, [.uint32(item), .string(type)], path: path) { v in
            if case .unixFD(let fd) = v { return fd }
            return nil
        }
    }
}

extension ContractCall where Result == [UInt8] {
    /// `ReadBytes(u item, s type) → ay` on the pasteboard at `path`.
    public static func readBytes(item: UInt32, type: String, at path: ObjectPath) -> Self {
        .single(ContractSignature.readBytes, [.uint32(item), .string(type)], path: path) { v in
            if case .bytes(let b) = v { return b }
            return nil
        }
    }
}

extension ContractCall where Result == Void {
    /// `Grant(as app_ids)` on the pasteboard at `path`.
    public static func grant(_ appIDs: [String], at path: ObjectPath) -> Self {
        ContractCall(ContractSignature.grant, [.strings(appIDs)], path: path) { _ in }
    }

    /// `Revoke(as app_ids)` on the pasteboard at `path`.
    public static func revoke(_ appIDs: [String], at path: ObjectPath) -> Self {
        ContractCall(ContractSignature.revoke, [.strings(appIDs)], path: path) { _ in }
    }

    /// `Delete()` on the pasteboard at `path`.
    public static func deletePasteboard(at path: ObjectPath) -> Self {
        ContractCall(ContractSignature.delete, [], path: path) { _ in }
    }
}
