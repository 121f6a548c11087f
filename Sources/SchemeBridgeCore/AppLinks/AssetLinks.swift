import LinuxSystem

/// `/.well-known/assetlinks.json` (Google's Digital Asset Links, the file Android app links
/// read): a JSON array of statements. A statement endorses a desktop app when its `relation`
/// array includes `delegate_permission/common.handle_all_urls` and its `target` is
/// `{"namespace": "freedesktop_app", "app_id": "<desktop id less .desktop>"}`. Android's own
/// statements (`"namespace": "android_app"`) and other relations are read past.
public enum AssetLinks {
    /// The largest file read (128 KiB); a bigger one endorses nothing.
    public static let maximumBytes = 128 * 1024
    /// The relation that hands the host's links to the app.
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"
    /// The target namespace of desktop apps.
    public static let namespace = "freedesktop_app"
    /// The path fetched on each host.
    public static let path = "/.well-known/assetlinks.json"

    /// Why a file endorses nothing.
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The app ids the file endorses, in file order, without duplicates; `Malformed` when it is
    /// not a JSON array of objects (or is larger than ``maximumBytes``).
    public static func endorsedApps(_ bytes: [UInt8]) throws(Malformed) -> [String] {
        guard bytes.count <= maximumBytes else { throw Malformed(message: "larger than \(maximumBytes / 1024) KiB") }
        let value: JSONValue
        do { value = try JSONValue(parsing: bytes) } catch { throw Malformed(message: "not JSON: \(error.message)") }
        guard case .array(let statements) = value else { throw Malformed(message: "not a JSON array of statements") }
        var apps: [String] = []
        for statement in statements {
            guard case .object = statement else { throw Malformed(message: "a statement is not a JSON object") }
            guard case .array(let relations)? = statement["relation"],
                  relations.contains(where: { $0.string == handleAllURLs }),
                  let target = statement["target"], target["namespace"]?.string == namespace,
                  let id = target["app_id"]?.string, isAppID(id), !apps.contains(id) else { continue }
            apps.append(id)
        }
        return apps
    }

    /// Whether `id` can be an app id (a desktop id less `.desktop`: no `/`, no control characters,
    /// at most 255 bytes, not ending in `.desktop`).
    public static func isAppID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 255 && !id.hasSuffix(".desktop")
            && !id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") })
    }
}
