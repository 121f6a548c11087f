import Glibc

/// Edits a user's `mimeapps.list` in place, line-preserving (see ``KeyFileDocument``).
public enum MimeAppsEditor {
    /// The edit GLib's `g_app_info_set_as_default_for_type` makes, applied to `document`:
    /// `[Default Applications]` `x-scheme-handler/<scheme>=<id>` (GLib writes no trailing `;`),
    /// `[Added Associations]` gets `<id>` first followed by the IDs already there, and `<id>` is
    /// taken out of `[Removed Associations]` (the line is removed when nothing is left in it).
    /// Keys are matched case-insensitively on the scheme; the last matching line (the one parsers
    /// use) is rewritten, other lines are untouched.
    public static func applyDefault(scheme: String, desktopID: DesktopID, to document: inout KeyFileDocument) {
        applyDefault(key: "x-scheme-handler/" + scheme, desktopID: desktopID, to: &document) { k in
            !k.contains("[") && Scheme.fromMimeType(k) == scheme
        }
    }

    /// ``applyDefault(scheme:desktopID:to:)`` for a content type (`text/markdown`), keys matched
    /// case-insensitively.
    public static func applyDefault(contentType: String, desktopID: DesktopID, to document: inout KeyFileDocument) {
        applyDefault(key: contentType, desktopID: desktopID, to: &document) { k in
            !k.contains("[") && Registry.lowercasedASCII(k) == contentType
        }
    }

    private static func applyDefault(key: String, desktopID id: DesktopID, to document: inout KeyFileDocument, matches: @escaping (String) -> Bool) {
        let desktopID = id.fileName
        document.setValue(desktopID, forKey: key, inGroup: MimeAppsList.defaultGroup, matching: matches)

        let oldAdded = document.rawValue(inGroup: MimeAppsList.addedGroup, where: matches)
            .map(KeyFileValue.splitList) ?? []
        let added = [desktopID] + oldAdded.filter { $0 != desktopID }
        document.setValue(KeyFileValue.joinList(added), forKey: key, inGroup: MimeAppsList.addedGroup, matching: matches)

        if let oldRemoved = document.rawValue(inGroup: MimeAppsList.removedGroup, where: matches)
            .map(KeyFileValue.splitList), oldRemoved.contains(desktopID) {
            let removed = oldRemoved.filter { $0 != desktopID }
            if removed.isEmpty {
                document.removeKeys(inGroup: MimeAppsList.removedGroup, where: matches)
            } else {
                document.setValue(KeyFileValue.joinList(removed), forKey: key,
                                  inGroup: MimeAppsList.removedGroup, matching: matches)
            }
        }
    }

    /// Reads `listPath` (following symlinks), applies ``applyDefault(scheme:desktopID:to:)`` and
    /// writes it back atomically to the symlink's target. Creates missing directories (mode 0700)
    /// and the file (mode 0644; an existing file keeps its mode).
    ///
    /// Other programs (`gio mime`, `xdg-mime`, a desktop's settings) write the same file without
    /// any lock. So, once the new file is written and synced, the target is read again: when it
    /// changed since we read it, our change is made again on top of the new content. Only then is
    /// the new file swapped in, with `renameat2(RENAME_EXCHANGE)`, which hands back the file it
    /// replaced: if even that is not the version we built on (another write landed in the
    /// microseconds between the check and the swap), the two are swapped back at once and the
    /// change is made again. A new file is created only where none appeared meanwhile.
    /// - Throws: ``SetDefaultError/writeFailed(path:reason:)``; the old file is then intact.
    static func setDefault(scheme: String, desktopID: DesktopID, listPath: String) throws(SetDefaultError) {
        do {
            try edit(listPath: listPath) { applyDefault(scheme: scheme, desktopID: desktopID, to: &$0) }
        } catch {
            throw .writeFailed(path: error.path, reason: error.message)
        }
    }

    /// ``setDefault(scheme:desktopID:listPath:)`` for a content type `key` (lower-case).
    static func setDefault(key: String, desktopID: DesktopID, listPath: String) throws(SetDefaultError) {
        do {
            try edit(listPath: listPath) { applyDefault(contentType: key, desktopID: desktopID, to: &$0) }
        } catch {
            throw .writeFailed(path: error.path, reason: error.message)
        }
    }

    /// Reads `listPath` (following symlinks), applies `change` and writes the result back the
    /// way ``setDefault(scheme:desktopID:listPath:)`` does: atomically, to the symlink's target,
    /// made again on top of another program's write that lands meanwhile — so `change` may run
    /// more than once, each time on the newest content, and must depend on nothing else.
    static func edit(listPath: String, _ change: (inout KeyFileDocument) -> Void) throws(FileSystemError) {
        // One scope for the attempts (the body of what was `setDefault`).
        do {
            let target = try FileSystem.resolveWriteTarget(listPath)
            try FileSystem.makeDirectories(FileSystem.dirname(target))
            var base = try readVersion(target)
            for _ in 0..<maximumAttempts {
                var document = KeyFileDocument(bytes: base?.bytes ?? [])
                change(&document)
                let temp = try FileSystem.writeTemporary(document.bytes, beside: target)
                let now = try readVersion(target)
                guard Version.same(now, base) else {
                    // Changed while we wrote (the slow part: the sync): build on the new content.
                    unlink(temp.path)
                    base = now
                    continue
                }
                guard let base else {
                    // No file when we read: create it, unless one appeared meanwhile.
                    if try FileSystem.renameIfAbsent(temp.path, target) {
                        FileSystem.syncDirectory(of: target)
                        return
                    }
                    unlink(temp.path)
                    continue
                }
                try FileSystem.exchange(temp.path, target)
                // `temp.path` now holds the file we replaced.
                let replaced = try readVersion(temp.path)
                if Version.same(replaced, base) {
                    unlink(temp.path)
                    FileSystem.syncDirectory(of: target)
                    return
                }
                // Someone wrote between our check and our swap: put theirs back, and start over.
                try FileSystem.exchange(temp.path, target)
                unlink(temp.path)
            }
            throw FileSystemError(path: target, code: EBUSY, message: "kept changing while we wrote it (\(maximumAttempts) tries); try again")
        }
    }

    /// How often a write is redone on top of another program's change before giving up.
    static let maximumAttempts = 16

    /// A version of a file: its bytes and what identifies it.
    struct Version {
        let bytes: [UInt8]
        let signature: FileSignature

        /// Whether `a` and `b` are the same file with the same content (or both absent).
        static func same(_ a: Version?, _ b: Version?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return a.signature.device == b.signature.device && a.signature.inode == b.signature.inode && a.bytes == b.bytes
        }
    }

    /// The file at `path` (nil when there is none); anything but a regular file is an error.
    static func readVersion(_ path: String) throws(FileSystemError) -> Version? {
        switch FileSystem.info(path).kind {
        case .missing:
            return nil
        case .file:
            let (bytes, signature) = try FileSystem.readFileWithSignature(path)
            return Version(bytes: bytes, signature: signature)
        case .directory, .other:
            throw FileSystemError(path: path, code: EISDIR, message: "is not a regular file")
        }
    }
}
