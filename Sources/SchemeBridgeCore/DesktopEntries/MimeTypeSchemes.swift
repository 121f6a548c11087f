extension DesktopEntry {
    /// The most URL schemes one desktop entry's `MimeType=` may declare (``schemes``). Past it
    /// the rest are ignored, with a warning. Real applications declare a handful (a browser or a
    /// media player a few dozen); every declared scheme costs a resolution when the registry is
    /// built, so a file of millions of schemes would otherwise cost seconds at every start.
    public static let maximumSchemes = 1024
}

extension DesktopEntryFields {
    /// The lower-cased schemes of the `x-scheme-handler/…` values of a `MimeType=` line, in
    /// file order, without duplicates: at most ``DesktopEntry/maximumSchemes``, a warning for
    /// the rest. Linear in the value's length (a set beside the list).
    static func schemes(_ mimeType: KeyFile.Entry?, path: String, warnings: inout [KeyFileError]) -> [String] {
        guard let mimeType else { return [] }
        var schemes: [String] = []
        var seen = Set<String>()
        // Stops at the first scheme past the limit: the rest of a huge line is never split.
        KeyFileValue.forEachListElement(mimeType.rawValue) { t in
            guard let s = Scheme.fromMimeType(t), !seen.contains(s) else { return true }
            guard schemes.count < DesktopEntry.maximumSchemes else {
                warnings.append(KeyFileError(path: path, line: mimeType.line,
                                             message: "MimeType= declares more than \(DesktopEntry.maximumSchemes) URL schemes; "
                                                 + "only the first \(DesktopEntry.maximumSchemes) are used"))
                return false
            }
            seen.insert(s)
            schemes.append(s)
            return true
        }
        return schemes
    }
}
