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
    /// - Throws: ``SetDefaultError/writeFailed(path:reason:)``; the old file is then intact.
    static func setDefault(scheme: String, desktopID: String, listPath: String) throws(SetDefaultError) {
        do throws(FileSystemError) {
            let target = try FileSystem.resolveWriteTarget(listPath)
            let existing: [UInt8]
            switch FileSystem.info(target).kind {
            case .missing:
                existing = []
            case .file:
                existing = try FileSystem.readFile(target)
            case .directory, .other:
                throw FileSystemError(path: target, code: EISDIR, message: "is not a regular file")
            }
            var document = KeyFileDocument(bytes: existing)
            applyDefault(scheme: scheme, desktopID: desktopID, to: &document)
            try FileSystem.makeDirectories(FileSystem.dirname(target))
            try FileSystem.writeAtomically(document.bytes, to: target)
        } catch {
            throw .writeFailed(path: error.path, reason: error.message)
        }
    }
}
