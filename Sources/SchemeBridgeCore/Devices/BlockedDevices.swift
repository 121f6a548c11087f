import Glibc

/// The devices the user said "Not from this device" to: what they send is never offered or
/// opened (``ReceivedTransfers``: ``ReceivedTransfers/Arrival/blocked``), only kept where the
/// engine put it and logged. Kept in `$XDG_CONFIG_HOME/schemebridge/blocked-devices`, the
/// user's own file, one device a line, its engine id and the name it had then:
///
/// ```ini
/// # Devices whose shares SchemeBridge never offers or opens
/// 1a2b3c4d_5e6f=Pixel 7
/// ```
///
/// `schemebridge devices` lists them; `schemebridge devices --allow ID` takes one off. Lines
/// that name no valid device id (``DeviceID``) are ignored.
public struct BlockedDevices: Sendable, Equatable {
    /// The most devices kept (past it, the oldest line goes).
    public static let maximumCount = 1_000

    /// Device id and the name it had when it was blocked, in the file's order.
    public private(set) var entries: [(id: String, name: String)] = []

    public init() {}

    public static func == (a: BlockedDevices, b: BlockedDevices) -> Bool {
        a.entries.elementsEqual(b.entries) { $0.id == $1.id && $0.name == $1.name }
    }

    /// `$XDG_CONFIG_HOME/schemebridge/blocked-devices`.
    public static func defaultPath(directories: XDGDirectories) -> String {
        XDGDirectories.join(XDGDirectories.join(directories.configHome, "schemebridge"), "blocked-devices")
    }

    /// Parses the file's text.
    public init(text: String) {
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            let id = String(line[..<eq]).trimmingCharacters(in: " \t")
            guard DeviceID.isValid(id) else { continue }
            add(id, name: String(line[line.index(after: eq)...]))
        }
    }

    /// Reads `path`; a missing or unreadable file is an empty list.
    public static func load(_ path: String) -> BlockedDevices {
        guard let bytes = try? FileSystem.readFile(path, limit: 256 * 1024) else { return BlockedDevices() }
        return BlockedDevices(text: String(decoding: bytes, as: UTF8.self))
    }

    /// Whether `id` is on the list.
    public func contains(_ id: String) -> Bool { entries.contains { $0.id == id } }

    /// Puts `id` (shown as `name`, sanitised) on the list; false when it was already.
    @discardableResult
    public mutating func add(_ id: String, name: String) -> Bool {
        guard DeviceID.isValid(id), !contains(id) else { return false }
        entries.append((id, DeviceName.sanitized(name).replacing("\n", with: " ")))
        if entries.count > Self.maximumCount { entries.removeFirst(entries.count - Self.maximumCount) }
        return true
    }

    /// Takes `id` off the list; false when it was not on it.
    @discardableResult
    public mutating func remove(_ id: String) -> Bool {
        guard contains(id) else { return false }
        entries.removeAll { $0.id == id }
        return true
    }

    /// The file's text.
    public var text: String {
        "# Devices whose shares SchemeBridge never offers or opens (\"Not from this device\").\n"
            + "# schemebridge devices --allow ID takes one off the list.\n"
            + entries.map { "\($0.id)=\($0.name)\n" }.joined()
    }

    /// Writes the list to `path` (atomically, mode 0600; its folder made when missing).
    public func save(_ path: String) throws(FileSystemError) {
        try FileSystem.makeDirectories(FileSystem.dirname(path))
        try FileSystem.writeAtomically(Array(text.utf8), to: path, defaultMode: 0o600)
    }
}
