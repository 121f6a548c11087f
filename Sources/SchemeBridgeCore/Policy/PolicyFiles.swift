import Glibc

/// Reading the config files in layers, and the warnings about their shape (unknown groups,
/// repeated keys, a `#` after a value) that apply to every group alike.
extension PolicyConfig {
    /// What ``read(_:)`` found.
    public struct Reading: Sendable {
        /// The settings of all files together; nil when one could not be read or parsed (the
        /// previous settings stay in force).
        public var config: PolicyConfig?
        /// What was ignored, and why, in file order.
        public var warnings: [String]
        /// The files that exist (and so were read), lowest precedence first.
        public var present: [String]
    }

    /// Reads `paths` (lowest precedence first; a missing file is skipped): each file's keys
    /// over those of the files before it. Non-blocking, regular files only, at most 1 MiB
    /// each: a FIFO or a device in a config file's place cannot block the reader.
    public static func read(_ paths: [String]) -> Reading {
        var reading = Reading(config: PolicyConfig(), warnings: [], present: [])
        for path in paths {
            var st = stat()
            guard stat(path, &st) == 0 else { continue }
            reading.present.append(path)
            let bytes: [UInt8]
            do { bytes = try FileSystem.readFile(path, limit: 1 << 20) } catch {
                reading.warnings.append("\(error); keeping the previous settings")
                reading.config = nil
                continue
            }
            do {
                if let base = reading.config {
                    reading.config = try parse(String(decoding: bytes, as: UTF8.self), path: path, over: base, warnings: &reading.warnings)
                }
            } catch {
                reading.warnings.append("\(error); keeping the previous settings")
                reading.config = nil
            }
        }
        return reading
    }

    /// Warnings about `file` as a whole: groups the service does not know, keys or groups given
    /// twice (the later wins), and values with a `#` after a space — a comment there is part of
    /// the value (the key-file syntax has comments on lines of their own only).
    static func checkLayout(_ file: KeyFile) -> [String] {
        var warnings = file.warnings.map(\.description)
        for group in file.groups {
            guard groups.contains(group.name) else {
                let hint = groups.first { $0.lowercased() == group.name.lowercased() }.map { " (did you mean [\($0)]?)" } ?? ""
                warnings.append("\(file.path):\(group.line): unknown group [\(group.name)] ignored\(hint)")
                continue
            }
            for entry in group.entries where entry.rawValue.contains(" #") || entry.rawValue.contains("\t#") {
                warnings.append("\(file.path):\(entry.line): the value of \(entry.key) contains ' #': a comment must be on a line of its own, "
                    + "after a value it is part of the value")
            }
        }
        return warnings
    }
}

extension PolicyStore {
    /// The config files for an environment, lowest precedence first: each
    /// `$XDG_CONFIG_DIRS/schemebridge/config` (the last directory first), then
    /// `$XDG_CONFIG_HOME/schemebridge/config`.
    public static func defaultPaths(directories: XDGDirectories) -> [String] {
        var seen = Set<String>()
        return ([directories.configHome] + directories.configDirs)
            .filter { seen.insert($0).inserted }
            .map { XDGDirectories.join(XDGDirectories.join($0, "schemebridge"), "config") }
            .reversed()
    }
}
