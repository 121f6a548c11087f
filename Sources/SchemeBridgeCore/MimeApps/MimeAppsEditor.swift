import Glibc

/// Edits a user's `mimeapps.list` in place, line-preserving (see ``KeyFileDocument``).
public enum MimeAppsEditor {
    /// The edit GLib's `g_app_info_set_as_default_for_type` makes, applied to `document`:
    /// `[Default Applications]` `x-scheme-handler/<scheme>=<id>` (GLib writes no trailing `;`),
    /// `[Added Associations]` gets `<id>` first followed by the IDs already there, and `<id>` is
    /// taken out of `[Removed Associations]` (the line is removed when nothing is left in it).
    /// Keys are matched case-insensitively on the scheme; the last matching line (the one parsers
    /// use) is rewritten, other lines are untouched.
    public static func applyDefault(scheme: String, desktopID: String, to document: inout KeyFileDocument) {
        let key = "x-scheme-handler/" + scheme
        let matches: (String) -> Bool = { k in !k.contains("[") && Scheme.fromMimeType(k) == scheme }
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
    /// any lock. So the new file is swapped in with `renameat2(RENAME_EXCHANGE)`, which hands back
    /// the file it replaced: when that is not the version we read, someone wrote in between, and
    /// our change is applied again on top of theirs and swapped in again (a new file is created
    /// only where none appeared meanwhile). A change another program made between our read and
    /// our write is never lost by us.
    /// - Throws: ``SetDefaultError/writeFailed(path:reason:)``; the old file is then intact.
    static func setDefault(scheme: String, desktopID: String, listPath: String) throws(SetDefaultError) {
        do throws(FileSystemError) {
            let target = try FileSystem.resolveWriteTarget(listPath)
            try FileSystem.makeDirectories(FileSystem.dirname(target))
            var source = try readVersion(target)
            var expected = source
            for _ in 0..<maximumAttempts {
                var document = KeyFileDocument(bytes: source?.bytes ?? [])
                applyDefault(scheme: scheme, desktopID: desktopID, to: &document)
                let bytes = document.bytes
                let temp = try FileSystem.writeTemporary(bytes, beside: target)
                guard let previous = expected else {
                    // No file when we read: create it, unless one appeared meanwhile.
                    if try FileSystem.renameIfAbsent(temp.path, target) {
                        FileSystem.syncDirectory(of: target)
                        return
                    }
                    unlink(temp.path)
                    source = try readVersion(target)
                    expected = source
                    continue
                }
                try FileSystem.exchange(temp.path, target)
                // `temp.path` now holds the file we replaced.
                let replaced = try readVersion(temp.path)
                unlink(temp.path)
                FileSystem.syncDirectory(of: target)
                if let replaced, replaced.signature.device == previous.signature.device,
                   replaced.signature.inode == previous.signature.inode, replaced.bytes == previous.bytes {
                    return
                }
                // Someone wrote between our read and our swap: build on what they wrote.
                source = replaced
                expected = Version(bytes: bytes, signature: temp.signature)
            }
            throw FileSystemError(path: target, code: EBUSY, message: "kept changing while we wrote it (\(maximumAttempts) tries); try again")
        } catch {
            throw .writeFailed(path: error.path, reason: error.message)
        }
    }

    /// How often a write is redone on top of another program's change before giving up.
    static let maximumAttempts = 16

    /// A version of a file: its bytes and what identifies it.
    struct Version {
        let bytes: [UInt8]
        let signature: FileSignature
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
