import Glibc
import LinuxSystem

/// Where KDE Connect writes what devices send, so the only paths a `shareReceived` is believed
/// for: a file in its download folder (the share plugin's `incoming_path` for that device, else
/// the XDG download folder, `$HOME/Downloads` without one), or below it; text in a
/// `kdeconnect-XXXXXX.txt` file directly in the engine's working directory (what its relative
/// `QTemporaryFile` makes). A path is judged where the opened file really is (the descriptor's
/// path, after every symlink), never by the name given.
public struct ReceivedPlaces: Sendable, Equatable {
    /// The download folders, as written and resolved.
    public var downloadDirectories: [String]
    /// The engine's working directory (resolved); nil: no received text is accepted.
    public var textDirectory: String?

    public init(downloadDirectories: [String], textDirectory: String?) {
        var all: [String] = []
        for d in downloadDirectories where d.hasPrefix("/") && d != "/" {
            for p in [d, FileSystem.realPath(d)].compactMap({ $0 }) {
                let trimmed = p.count > 1 && p.hasSuffix("/") ? String(p.dropLast()) : p
                if trimmed != "/" && !all.contains(trimmed) { all.append(trimmed) }
            }
        }
        self.downloadDirectories = all
        self.textDirectory = textDirectory
    }

    /// KDE Connect's places for what device `deviceID` sends, in the session of `directories`,
    /// with the engine in `engineDirectory`.
    public static func kdeconnect(_ directories: XDGDirectories, deviceID: String, engineDirectory: String?) -> ReceivedPlaces {
        var downloads = [downloadDirectory(directories)]
        if DeviceID.isValid(deviceID) {
            let config = XDGDirectories.join(directories.configHome, "kdeconnect/\(deviceID)/kdeconnect_share/config")
            if let text = try? FileSystem.readFile(config, limit: 64 * 1024), let configured = incomingPath(in: String(decoding: text, as: UTF8.self)) {
                downloads.append(configured)
            }
        }
        return ReceivedPlaces(downloadDirectories: downloads, textDirectory: engineDirectory)
    }

    /// The XDG download folder: `XDG_DOWNLOAD_DIR` in `$XDG_CONFIG_HOME/user-dirs.dirs`
    /// (`$HOME/…` or an absolute path), else `$HOME/Downloads`.
    public static func downloadDirectory(_ directories: XDGDirectories) -> String {
        let fallback = XDGDirectories.join(directories.home, "Downloads")
        guard let bytes = try? FileSystem.readFile(XDGDirectories.join(directories.configHome, "user-dirs.dirs"), limit: 64 * 1024) else { return fallback }
        for raw in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let line = raw.trimmingSpaces
            guard line.hasPrefix("XDG_DOWNLOAD_DIR=") else { continue }
            var value = line.dropFirst("XDG_DOWNLOAD_DIR=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            if value.hasPrefix("$HOME/") { return XDGDirectories.join(directories.home, String(value.dropFirst(6))) }
            if value.hasPrefix("/") { return String(value) }
        }
        return fallback
    }

    /// The share plugin's `incoming_path` (a path or `file://` URL); with `%1` (the device's
    /// name) the folder above it. Nil when absent or not absolute.
    static func incomingPath(in config: String) -> String? {
        for raw in config.split(separator: "\n") {
            let line = raw.trimmingSpaces
            guard line.hasPrefix("incoming_path") else { continue }
            let rest = line.dropFirst("incoming_path".count).trimmingSpaces
            guard rest.hasPrefix("=") else { continue }
            var value = String(rest.dropFirst().trimmingSpaces)
            if value.hasPrefix("file://") { value = ReceivedShare.decodedPath(String(value.dropFirst(7))) ?? "" }
            if let marker = value.firstRange(of: "%1") { value = FileSystem.dirname(String(value[..<marker.lowerBound]) + "x") }
            return value.hasPrefix("/") && value != "/" ? value : nil
        }
        return nil
    }

    /// Whether `share`, opened and found at `openedPath` (the descriptor's own path), is in a
    /// place the engine writes such shares.
    public func admits(_ share: ReceivedShare, openedPath: String) -> Bool {
        switch share {
        case .file:
            return downloadDirectories.contains { openedPath.hasPrefix($0 + "/") }
        case .text:
            guard let textDirectory else { return false }
            let name = openedPath.split(separator: "/").last.map(String.init) ?? ""
            return FileSystem.dirname(openedPath) == textDirectory && Self.isEngineTextName(name)
        }
    }

    /// `kdeconnect-` + 6 letters or digits + `.txt`.
    static func isEngineTextName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let prefix = Array("kdeconnect-".utf8), suffix = Array(".txt".utf8)
        guard bytes.count == prefix.count + 6 + suffix.count, bytes.starts(with: prefix), bytes.suffix(suffix.count).elementsEqual(suffix) else { return false }
        return bytes[prefix.count..<(prefix.count + 6)].allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// Opens what `share` names without following a symlink in its last part or blocking on a
    /// FIFO (``FileDescriptor/openNoFollow(_:_:)``), and keeps it only when the opened file is in
    /// one of these places. Blocking: call it from a descriptor thread.
    public func open(_ share: ReceivedShare) throws(ServiceFailure) -> FileDescriptor {
        let path: String
        switch share {
        case .file(let p), .text(let p): path = p
        }
        let fd: FileDescriptor
        do { fd = try FileDescriptor.openNoFollow(path) } catch {
            throw ServiceFailure(.failed, "cannot open the received \(share.kind) \(path): \(error)")
        }
        guard let opened = SharedFileFacts.kernelPath(of: fd), admits(share, openedPath: opened) else {
            throw ServiceFailure(.failed, "the received \(share.kind) \(path) is not where the engine puts what devices send; it is not opened")
        }
        return fd
    }
}

extension ReceivedShare {
    /// `file` or `text`, for messages.
    public var kind: String {
        switch self {
        case .file: return "file"
        case .text: return "text"
        }
    }
}
