#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads applications directories into ``AppFileRecord``s. Runs without the registry lock.
///
/// Rules: files named `*.desktop` (not starting with `.`, so editors' and our own temporary
/// files are skipped) anywhere under the directory; subdirectories give `sub-name.desktop` IDs;
/// symlinks are followed, and a directory already visited in this walk (same device and inode —
/// a symlink loop or a second link to it) is skipped with a warning; at most 16 levels deep.
/// Unreadable directories and files produce a warning; files that vanish during the scan are
/// simply absent.
struct AppScanner: Sendable {
    let locale: LocaleMatcher
    let searchPath: [String]
    static let maximumDepth = 16

    struct Result: Sendable {
        /// Relative path → record for every file found (unchanged ones reuse `known`).
        var records: [String: AppFileRecord] = [:]
        var warnings: [RegistryWarning] = []
    }

    /// Walks `directory` below `prefix` ("" for all of it). Files whose signature equals the one
    /// in `known` are not re-read; `knownRecords` supplies their records.
    func scan(directory: ApplicationsDirectory, prefix: String,
              knownRecords: [String: AppFileRecord]) -> Result {
        var result = Result()
        var visited = Set<[UInt64]>()
        let start = prefix.isEmpty ? directory.path : XDGDirectories.join(directory.path, prefix)
        let info = FileSystem.info(start)
        guard info.kind == .directory else { return result }
        visited.insert([info.device, info.inode])
        walk(directory: directory, path: start, relative: prefix, depth: 0, visited: &visited,
             known: knownRecords, result: &result)
        return result
    }

    private func walk(directory: ApplicationsDirectory, path: String, relative: String, depth: Int,
                      visited: inout Set<[UInt64]>, known: [String: AppFileRecord], result: inout Result) {
        let listing: (entries: [(name: String, type: UInt8)], undecodable: Int)
        do {
            listing = try FileSystem.list(path)
        } catch {
            if error.code != ENOENT && error.code != ENOTDIR {
                result.warnings.append(RegistryWarning(path: path, message: error.message + "; its entries are skipped"))
            }
            return
        }
        if listing.undecodable > 0 {
            result.warnings.append(RegistryWarning(path: path, message: "\(listing.undecodable) file name(s) are not UTF-8; skipped"))
        }
        for (name, type) in listing.entries where !name.hasPrefix(".") {
            let full = XDGDirectories.join(path, name)
            let rel = relative.isEmpty ? name : relative + "/" + name
            let isDesktop = name.hasSuffix(".desktop") && name.utf8.count > 8
            if type == UInt8(DT_REG) && !isDesktop { continue }
            // A regular file never seen before is read at once (its signature comes from the read).
            if type == UInt8(DT_REG) && known[rel] == nil {
                if let parsed = parse(directory: directory, relativePath: rel, path: full) {
                    result.records[rel] = parsed.0
                    result.warnings.append(contentsOf: parsed.1)
                }
                continue
            }
            if type == UInt8(DT_DIR) || type == UInt8(DT_LNK) || type == UInt8(DT_UNKNOWN) || isDesktop {
                let info = FileSystem.info(full)
                switch info.kind {
                case .directory:
                    guard depth + 1 < AppScanner.maximumDepth else {
                        result.warnings.append(RegistryWarning(path: full, message: "nested more than \(AppScanner.maximumDepth) levels deep; skipped"))
                        continue
                    }
                    guard visited.insert([info.device, info.inode]).inserted else {
                        result.warnings.append(RegistryWarning(path: full, message: "directory already scanned (symlink loop?); skipped"))
                        continue
                    }
                    walk(directory: directory, path: full, relative: rel, depth: depth + 1,
                         visited: &visited, known: known, result: &result)
                case .file where isDesktop:
                    if let old = known[rel], old.signature == info.signature {
                        result.records[rel] = old
                    } else if let parsed = parse(directory: directory, relativePath: rel, path: full) {
                        result.records[rel] = parsed.0
                        result.warnings.append(contentsOf: parsed.1)
                    }
                case .other where isDesktop:
                    result.warnings.append(RegistryWarning(path: full, message: "not a regular file; skipped"))
                default:
                    continue
                }
            }
        }
    }

    /// Parses one file into a record; nil when it vanished.
    func parse(directory: ApplicationsDirectory, relativePath: String, path: String) -> (AppFileRecord, [RegistryWarning])? {
        let id = DesktopID.make(relativePath: relativePath)
        do {
            let (entry, keyWarnings, signature) = try DesktopEntry.loadWithSignature(path: path, id: id, directory: directory, locale: locale)
            var warnings = keyWarnings.map(RegistryWarning.init)
            guard let entry else {
                return (AppFileRecord(relativePath: relativePath, id: id, signature: signature, state: .notApplication), warnings)
            }
            let reason = entry.ineligibility(searchPath: searchPath)
            if reason != nil, !entry.hidden, entry.execError != nil, !entry.dbusActivatable {
                warnings.append(RegistryWarning(path: path, message: "skipped: \(reason!)"))
            }
            return (AppFileRecord(relativePath: relativePath, id: id, signature: signature,
                                  state: .application(entry, eligible: reason == nil)), warnings)
        } catch {
            let info = FileSystem.info(path)
            if info.kind == .missing { return nil }
            return (AppFileRecord(relativePath: relativePath, id: id, signature: info.signature, state: .invalid),
                    [RegistryWarning(path: error.path, line: error.line, message: error.message + "; skipped")])
        }
    }

    /// Re-reads one file after an event; nil record when it is gone (or not a `.desktop` file).
    func rescanFile(directory: ApplicationsDirectory, relativePath: String) -> (AppFileRecord?, [RegistryWarning]) {
        let path = XDGDirectories.join(directory.path, relativePath)
        let info = FileSystem.info(path)
        switch info.kind {
        case .file:
            guard let parsed = parse(directory: directory, relativePath: relativePath, path: path) else {
                return (nil, [])
            }
            return (parsed.0, parsed.1)
        case .other:
            return (nil, [RegistryWarning(path: path, message: "not a regular file; skipped")])
        default:
            return (nil, [])
        }
    }
}
