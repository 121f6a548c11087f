extension Broker {
    /// The admission of opening `folder` with `entry` for `caller`: a document open of the
    /// folder's `file://` URL (``admit(document:entry:request:searchPath:sessionScale:splashAvailable:inDocumentPortal:)``),
    /// with no launch image.
    public func admit(folder: String, entry: DesktopEntry, caller: Caller, searchPath: [String], sessionScale: Int) throws(ServiceFailure) -> Admission {
        let url = try SchemeURL.file(Array(folder.utf8), "the folder")
        return try admit(document: url, entry: entry, request: OpenRequest(url: url, handler: entry.id, caller: caller), searchPath: searchPath,
                         sessionScale: sessionScale, splashAvailable: false)
    }
}
