import LinuxSystem

/// One item of a share, accepted by ``ShareItemGrammar`` (a file inspected). A file's descriptor
/// stays open (held by `Held`) until the share is delivered; data and URLs go to the share's
/// pasteboard (``pasteboardValues``).
public struct SharedItem<Held: HeldDescriptor>: Sendable {
    /// What the item carries.
    public enum Payload: Sendable {
        /// `{file: h}`: the caller's descriptor.
        case file(Held)
        /// `{type: s, data: ay|h}`: the bytes, or the descriptor (its number in the value, held by `holder`).
        case data(PasteboardWrite.Value, holder: Held?)
        /// `{url: s}`.
        case url(String)
    }

    public let payload: Payload
    /// Its kind and type, as the decision sees it.
    public let summary: ShareItemSummary
    /// The item's name (`name`, else the file's own; "" for data or a URL without one).
    public let name: String
    /// A file's facts as the share was made, when it named a device as its target (for sending
    /// the file by its own path: ``DeviceFileSource``).
    public var facts: SharedFileFacts?

    /// An item as given.
    public init(payload: Payload, summary: ShareItemSummary, name: String, facts: SharedFileFacts? = nil) {
        (self.payload, self.summary, self.name, self.facts) = (payload, summary, name, facts)
    }

    /// The item `accepted` is; a file is looked at with `inspect` (given the item's `name`, if
    /// any): its type, and its name when the item names none.
    @inlinable
    public static func of<E: Error>(_ accepted: ShareItemGrammar.Item<Held>,
                                    inspect: (Held, _ name: String?) async throws(E) -> InspectedFile) async throws(E) -> SharedItem {
        switch accepted {
        case .file(let fd, let name):
            let inspected = try await inspect(fd, name)
            return SharedItem(payload: .file(fd), summary: ShareItemSummary(kind: .file, type: inspected.type.name), name: name ?? inspected.name,
                              facts: inspected.facts)
        case .url(let url, let name):
            return SharedItem(payload: .url(url), summary: ShareItemSummary(kind: .url, type: ShareItemSummary.uriType), name: name ?? "")
        case .bytes(let b, let type, let name):
            return SharedItem(payload: .data(.bytes(b), holder: nil), summary: ShareItemSummary(kind: .data, type: type.name), name: name ?? "")
        case .data(let fd, let type, let name):
            return SharedItem(payload: .data(.descriptor(fd.rawValue), holder: fd), summary: ShareItemSummary(kind: .data, type: type.name), name: name ?? "")
        }
    }

    /// A share's items, in order, from their entries (``ShareItemGrammar``): each file looked at
    /// in one job on `runner` for the caller known as `key` — its name and type (`documents`), and
    /// with `facts` (a share naming a device) what its send decides from (given the descriptor
    /// and the item's name) — or, for a file `local` says cannot block, all of it on this thread,
    /// its type from its name (``DeviceFileLook``). A failure names its item (`item 2: …`), its
    /// kind kept. Inlinable: specialized for the daemon's descriptor type where it is called (a
    /// generic call across the module runs through the runtime's metadata lookups at each step).
    @inlinable
    public static func intake(_ items: [[String: ShareItemGrammar.Field<Held>]], keys: ShareItemGrammar.Keys, documents: Documents,
                              runner: any DescriptorRunner, key: String,
                              facts: (@Sendable (Int32, String) -> SharedFileFacts)?, local: DeviceLocalLook? = nil) async throws -> [SharedItem] {
        var accepted: [SharedItem] = []
        for (i, entries) in items.enumerated() {
            accepted.append(try await of(try ShareItemGrammar.item(i, entries, keys: keys)) { fd, name async throws(ServiceFailure) -> InspectedFile in
                if let local, let seen = local.look(fd.rawValue) {
                    do throws(ServiceFailure) {
                        let found = try fd.withFileDescriptor { d throws(OpenFailure) in try documents.inspectByName(d, kernelPath: seen.path, status: seen.status) }
                        return InspectedFile(name: found.name, type: found.type, facts: local.facts(fd.rawValue, name ?? "", seen.path, found.status))
                    } catch {
                        throw ServiceFailure(error.kind, "item \(i): \(error.message)")
                    }
                }
                do {
                    return try await runner.run(for: key) { () throws in
                        let found = try fd.withFileDescriptor { d throws(OpenFailure) in try documents.inspect(d, contentType: nil) }
                        let gathered = facts?(fd.rawValue, name ?? "")
                        withExtendedLifetime(fd) {}
                        return InspectedFile(name: found.name, type: found.type, facts: gathered)
                    }
                } catch {
                    let failure = runner.failure(of: error)
                    throw ServiceFailure(failure.kind, "item \(i): \(failure.message)")
                }
            })
        }
        return accepted
    }

    /// The pasteboard types and values this item is stored as (data and URLs only; nil for a file).
    public var pasteboardValues: [(type: String, value: PasteboardWrite.Value)]? {
        switch payload {
        case .file: return nil
        case .data(let value, _): return [(summary.type, value)]
        case .url(let url): return ShareItemSummary.pasteboardValues(url: url).map { ($0.type, .bytes($0.bytes)) }
        }
    }

    /// What the sheet shows of it (``ShareItemPreview``).
    public var preview: ShareItemPreview {
        switch payload {
        case .file(let fd): .file(descriptor: fd.rawValue, name: name, type: summary.type)
        case .url(let url): .url(url, type: summary.type)
        case .data(.bytes(let bytes), _): .data(bytes: bytes, descriptor: nil, name: name, type: summary.type)
        case .data(.descriptor(let fd), _): .data(bytes: nil, descriptor: fd, name: name, type: summary.type)
        }
    }

    /// Where a device send reads this item from: a file's or data's descriptor (nil for inline
    /// bytes and URLs).
    public var descriptor: Int32? {
        switch payload {
        case .file(let fd): fd.rawValue
        case .data(.descriptor(let fd), _): fd
        case .data(.bytes, _), .url: nil
        }
    }
}

extension ShareItemSummary {
    /// The most types one `ShareTargets` call names.
    public static let maximumTypesAsked = 256

    /// What `ShareTargets` asks about: items of each of `types`, taken as files ("Open in" is
    /// offered). `InvalidArgs` beyond ``maximumTypesAsked`` or for a type that is none.
    public static func files(ofTypes types: [String]) throws(ServiceFailure) -> [ShareItemSummary] {
        guard types.count <= maximumTypesAsked else { throw ServiceFailure(.invalidArgument, "at most \(maximumTypesAsked) types at once") }
        return try types.map { t throws(ServiceFailure) in ShareItemSummary(kind: .file, type: try ContentType(t).name) }
    }
}

extension Array {
    /// The share's pasteboard values: every data and URL item's, one pasteboard item each, in order.
    /// (Closures here, not key paths: a key path into a generic type is made anew at each call, its
    /// types demangled by the runtime.)
    public func pasteboardValues<Held>() -> [[(type: String, value: PasteboardWrite.Value)]] where Element == SharedItem<Held> {
        guard contains(where: { if case .file = $0.payload { false } else { true } }) else { return [] }
        return compactMap { $0.pasteboardValues }
    }

    /// What the sheet is told of the share: its types, how many items, the first items' previews.
    public func shareQuestion<Held>(activationToken: String?) -> ShareQuestion where Element == SharedItem<Held> {
        ShareQuestion(types: ShareSubject(items: map { $0.summary }, tools: ShareTools(copy: false, save: false)).types, count: count,
                      activationToken: activationToken, previews: prefix(ShareItemPreview.limit).map { $0.preview })
    }
}

/// What a file item's descriptor was found to be, in one look on a descriptor thread.
public struct InspectedFile: Sendable {
    /// The name it was opened by.
    public let name: String
    /// Its detected type.
    public let type: ContentType
    /// What a device send decides from (``DeviceFileSource``), when the share names a device.
    public let facts: SharedFileFacts?

    /// A file named `name` of type `type`.
    public init(name: String, type: ContentType, facts: SharedFileFacts?) {
        (self.name, self.type, self.facts) = (name, type, facts)
    }
}
