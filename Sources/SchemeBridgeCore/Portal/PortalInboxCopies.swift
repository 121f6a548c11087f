import Glibc

/// How long an Inbox copy lives (issue 40): as the document portal keeps a document. A copy
/// handed into a sandbox as a persistent document — a provider's document picked through the
/// portal's `FileChooser` (the frontend adds it so) — is the app's file for as long as the portal
/// has the document: the app may reopen it days later (a recent file) and the document names
/// nothing else. (`OpenFile`'s copy for a Flatpak handler is a transient document of its own,
/// which ends only with the portal, i.e. the session, and which `Lookup` never finds by its file:
/// the portal matches a path only among persistent, reusable documents. So that copy goes at the
/// same sweep past `Retention` as any copy, its document or not: PortalFileChooserTests'
/// `anOpenFileCopyForAFlatpakHandlerGoesAfterTheRetentionAndThePickedOneStays`.) So
/// the retention sweep removes a copy past `[Documents] Retention` only when no document refers
/// to it (``DocumentPortalPort/hasDocument(path:)``: the portal's `Lookup`); once the document is
/// deleted (the user's `flatpak document-unexport`, the app's own `Delete`), the next sweep takes
/// the copy. A copy nothing refers to goes after `Retention` as before. The Inbox caps still hold:
/// at a cap the oldest copies make room, referred to or not (``InboxLimits``).
extension Inbox {
    /// The Inbox files last changed more than `retention` seconds before `now` (seconds since
    /// the epoch), as paths (bytes: names need not be UTF-8): what a sweep would remove.
    public func expired(retention: Int64, now: Int64) -> [[UInt8]] {
        guard let apps = try? FileSystem.list(root) else { return [] }
        var out: [[UInt8]] = []
        for app in apps.entries where app.type == DT_DIR {
            let dir = XDGDirectories.join(root, app.name)
            for file in (try? FileSystem.listNames(dir)) ?? [] {
                let path = FileSystem.join(dir, file.name)
                var st = stat()
                if FileSystem.withPath(path, { lstat($0, &st) }) == 0, now - Int64(st.st_mtim.tv_sec) > retention { out.append(path) }
            }
        }
        return out
    }

    /// Removes those of `paths` (``expired(retention:now:)``'s) that are still past `retention`
    /// at `now` (one changed since stays), then the Inboxes left empty; returns how many went.
    @discardableResult
    public func remove(expired paths: [[UInt8]], retention: Int64, now: Int64) -> Int {
        var removed = 0
        for path in paths {
            var st = stat()
            guard FileSystem.withPath(path, { lstat($0, &st) }) == 0, now - Int64(st.st_mtim.tv_sec) > retention else { continue }
            if FileSystem.withPath(path, { unlink($0) }) == 0 { removed += 1 }
        }
        for app in ((try? FileSystem.list(root))?.entries ?? []) where app.type == DT_DIR {
            rmdir(XDGDirectories.join(root, app.name))  // only an empty one goes
        }
        return removed
    }
}
