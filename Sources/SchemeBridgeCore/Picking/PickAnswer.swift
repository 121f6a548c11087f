import LinuxSystem
import Glibc
/// The rules a provider's answer (`ProvideDocuments`) is checked by before anything reaches the
/// caller: how many documents, what each is called, and that each is of a type the caller
/// asked for. The descriptors themselves (regular files only, copied into sealed memfds) are
/// taken by ``SealedData/take(_:limit:)``.
public enum PickAnswer {
    /// The most documents one answer may carry. The session bus refuses a message with more
    /// descriptors than its `max_message_unix_fds` (dbus-daemon's default: 16 on Debian 12's
    /// dbus 1.14, measured), so a larger answer never arrives; this bound makes the service's
    /// own refusal clear for any bus configured higher.
    public static let maximumDocuments = 16
    /// The most bytes one document may hold (it is copied into memory).
    public static let maximumDocumentBytes: Int64 = 256 << 20
    /// The most bytes of all documents of one answer together.
    public static let maximumTotalBytes: Int64 = 512 << 20

    /// `InvalidArgs` unless `count` documents may answer a pick (`multiple`: more than one).
    public static func checkCount(_ count: Int, multiple: Bool) throws(OpenFailure) {
        if count == 0 {
            throw OpenFailure(.invalidArgument, "no document was provided: answer with at least one descriptor, or cancel with Reply(token, 1, {})")
        }
        if count > maximumDocuments {
            throw OpenFailure(.invalidArgument, "\(count) documents were provided; one answer carries at most \(maximumDocuments)")
        }
        if count > 1 && !multiple {
            throw OpenFailure(.invalidArgument, "\(count) documents were provided but the caller asked for one (multiple is false)")
        }
    }

    /// `InvalidArgs` unless the `names` and `types` lists of an answer of `count` documents are
    /// empty or have one entry per document.
    public static func checkLists(names: [String], types: [String], count: Int) throws(OpenFailure) {
        for (key, list) in [("names", names), ("types", types)] where !list.isEmpty && list.count != count {
            throw OpenFailure(.invalidArgument, "info '\(key)' has \(list.count) entries for \(count) documents: give one per descriptor, or none")
        }
    }

    /// The name the caller is told for document `index`: the last component of `given`, without
    /// control characters, at most 255 bytes, never empty, `.` or `..` (then `document-N`).
    public static func name(_ given: String?, index: Int) -> String {
        let fallback = "document-\(index + 1)"
        guard let given else { return fallback }
        let last = given.split(separator: "/").last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        var bytes = 0
        for s in last.unicodeScalars where s.value >= 0x20 && s.value != 0x7F {
            let size = String(s).utf8.count
            if bytes + size > 255 { break }
            bytes += size
            scalars.append(s)
        }
        let name = String(scalars)
        return name.isEmpty || name == "." || name == ".." ? fallback : name
    }

    /// The type of a provided document: the provider's claim (`claimed`) when it gives one, else
    /// what its name and first bytes say. `InvalidArgs` when it is not of a type `subject` asks
    /// for, or when a claim contradicts the content (the first bytes say another type — text
    /// included — that is neither a sub-class nor a parent of the claim).
    public static func type(claimed: String?, name: String, head: [UInt8], subject: PickSubject,
                            types: ContentTypeDatabase) throws(OpenFailure) -> String {
        let sniffed = types.guess(name: nil, data: head)
        let detected = types.contentType(forData: head, name: name)
        var type = detected
        if let claimed, !claimed.isEmpty {
            guard let valid = try? PasteboardType.validated(claimed) else {
                throw OpenFailure(.invalidArgument, "'\(claimed.prefix(80))' is not a content type (type/subtype)")
            }
            type = types.canonicalType(valid)
            if !isGeneric(sniffed.type), !types.isSubclass(sniffed.type, of: type), !types.isSubclass(type, of: sniffed.type) {
                throw OpenFailure(.invalidArgument, "'\(name)' is said to be \(type) but its content is \(sniffed.type)")
            }
        }
        guard subject.admitting(type, types: types) != nil else {
            throw OpenFailure(.invalidArgument, "'\(name)' is \(type), which the caller did not ask for (it asked for \(subject.listed))")
        }
        return type
    }

    /// Why document `index` (0-based) cannot be handed to the caller, by its file mode: nil for
    /// a regular file (a memfd is one); a pipe, a socket, a directory or a device is refused
    /// (their content can change, block, or is no document).
    public static func refusal(mode: UInt32, index: Int) -> OpenFailure? {
        let kind: String
        switch mode & 0o170000 {
        case 0o100000: return nil
        case 0o010000: kind = "a pipe (FIFO)"
        case 0o140000: kind = "a socket"
        case 0o040000: kind = "a directory"
        case 0o020000, 0o060000: kind = "a device"
        default: kind = "not a regular file"
        }
        return OpenFailure(.invalidArgument, "document \(index + 1) is \(kind): provide regular files (or memfds) open for reading")
    }

    /// Types the sniffer falls back to when the content says nothing (unknown binary data, no
    /// data). Text is not among them: a claim of a binary type for text is refused.
    private static func isGeneric(_ type: String) -> Bool {
        type == ContentTypeName.octetStream || type == "application/x-zerosize"
    }
}

/// What a pick's answer may still take while its documents are copied: each at most
/// ``PickAnswer/maximumDocumentBytes``, all together ``PickAnswer/maximumTotalBytes``.
public struct PickBudget: Sendable, Equatable {
    /// Bytes left for the documents not yet copied.
    public private(set) var left = PickAnswer.maximumTotalBytes

    public init() {}

    /// The most the next document may hold.
    public var nextLimit: Int64 { min(left, PickAnswer.maximumDocumentBytes) }

    /// A document of `size` bytes was taken.
    public mutating func spend(_ size: Int64) { left -= size }
}

/// How a pick's provider is started: by `org.freedesktop.Application.Activate(platform_data)`
/// when its entry is `DBusActivatable` (its names were checked when the entry was read), else its
/// first command, given no URLs.
public enum ProviderStart: Sendable, Equatable {
    case activate(busName: String, objectPath: String)
    case spawn(LaunchCommand)

    /// How `entry` is started. Nil: nothing to start.
    public static func of(_ entry: DesktopEntry) -> ProviderStart? {
        if entry.dbusActivatable { return .activate(busName: entry.busName, objectPath: entry.objectPath) }
        return entry.launchCommands(for: []).first.map { .spawn($0) }
    }
}

extension Broker {
    /// The launch of pick provider `id` (``ProviderStart``), handed nothing but its token:
    /// `InvalidHandler` when it is no longer installed, `LaunchFailed` when it has nothing to start.
    public func providerPlan(_ id: String) throws(OpenFailure) -> LaunchPlan {
        guard let entry = registry.entry(id: id) else { throw OpenFailure(.invalidHandler, "\(id) is no longer installed") }
        switch ProviderStart.of(entry) {
        case .activate(let busName, let objectPath)?:
            return LaunchPlan(targets: .nothing, entry: entry, action: .activate(busName: busName, objectPath: objectPath), call: .activate, purpose: .pick)
        case .spawn(let command)?:
            return LaunchPlan(targets: .nothing, entry: entry, action: .spawn([command]), purpose: .pick)
        case nil:
            throw OpenFailure(.launchFailed, "\(id) has no command to start")
        }
    }
}

/// One document a pick's answer handed over, checked and copied (``PickAnswer/take(_:names:types:subject:database:)``).
public struct PickedDocument: Sendable {
    /// The sealed copy the caller reads.
    public let data: SealedData
    public let name: String
    public let type: String
}

extension PickAnswer {
    /// Checks and copies the documents open as `fds` (a provider's or the file chooser's) into
    /// sealed memfds, so nothing the provider does afterwards changes what the caller reads:
    /// regular files only (``refusal(mode:index:)``), within ``PickBudget``, each named
    /// (``name(_:index:)``) and typed (``type(claimed:name:head:subject:types:)``). Blocks: runs on
    /// a descriptor thread.
    public static func take(_ fds: [Int32], names: [String], types: [String], subject: PickSubject,
                            database: ContentTypeDatabase) throws(OpenFailure) -> [PickedDocument] {
        var out: [PickedDocument] = []
        var budget = PickBudget()
        for (i, fd) in fds.enumerated() {
            let limit = budget.nextLimit
            let data = try FileDescriptor.lending(fd) { d throws(OpenFailure) -> SealedData in
                let st: stat
                do throws(Errno) { st = try d.status() } catch { throw OpenFailure(.invalidArgument, "document \(i + 1) cannot be examined (errno \(error.code))") }
                if let refusal = refusal(mode: UInt32(st.st_mode), index: i) { throw refusal }
                return try SealedData.take(d, limit: limit)
            }
            budget.spend(data.size)
            let name = name(i < names.count ? names[i] : nil, index: i)
            let type = try type(claimed: i < types.count ? types[i] : nil, name: name, head: head(of: data), subject: subject, types: database)
            out.append(PickedDocument(data: data, name: name, type: type))
        }
        return out
    }

    /// The first bytes of `data` (what the type is sniffed from).
    static func head(of data: SealedData) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(min(data.size, Int64(ContentTypeDatabase.defaultSniffLimit))))
        let n = out.withUnsafeMutableBytes { pread(data.descriptor.rawValue, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(out.prefix(n)) : []
    }
}
