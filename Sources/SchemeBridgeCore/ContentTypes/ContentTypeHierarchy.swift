/// Sub-classes, as the spec defines them: the declared `sub-class-of` parents (the caches'
/// parent lists, merged), plus two implicit rules — every `text/*` type is a `text/plain`, and
/// every type but `inode/*` is an `application/octet-stream`. Aliases are resolved first.
extension MimeData {
    /// Whether `type` is `base`, or is derived from it (GLib's `g_content_type_is_a`): also
    /// true for a super-type pattern `base` such as `image/*` when `type` is an `image/…`.
    /// Loops in the declared parents end the walk instead of recursing forever.
    func isSubclass(_ type: String, of base: String) -> Bool {
        let parent = canonicalType(base)
        var seen: Set<String> = [canonicalType(type)]
        var queue = Array(seen)
        while !queue.isEmpty {
            let child = queue.removeFirst()
            if MimeData.isImmediately(child, parent) { return true }
            for p in declaredParents(of: child) {
                let next = canonicalType(p)
                if seen.insert(next).inserted { queue.append(next) }
            }
        }
        return false
    }

    /// `child` is `parent` without looking at declared parents: the same type, a super-type
    /// pattern's media type, or one of the implicit rules.
    private static func isImmediately(_ child: String, _ parent: String) -> Bool {
        if child == parent { return true }
        if parent.hasSuffix("/*"), let slash = parent.firstIndex(of: "/"), child.hasPrefix(parent[...slash]) { return true }
        if parent == ContentTypeName.plainText && child.hasPrefix("text/") { return true }
        return parent == ContentTypeName.octetStream && !child.hasPrefix("inode/")
    }

    /// `type` and every type it derives from, nearest first: `type` (canonical), its declared
    /// parents breadth first (in the order the caches list them), then `text/plain` when a type
    /// on the chain is `text/*`, then `application/octet-stream` unless `type` is `inode/*`.
    /// This is the order in which a handler is looked for (a type's own handlers, then its
    /// parents'…, the generic text and binary handlers last).
    func parentChain(of type: String) -> [String] {
        let start = canonicalType(type)
        var chain = [start]
        var i = 0
        while i < chain.count {
            for p in declaredParents(of: chain[i]) {
                let parent = canonicalType(p)
                if !chain.contains(parent) { chain.append(parent) }
            }
            i += 1
        }
        if chain.contains(where: { $0.hasPrefix("text/") }) && !chain.contains(ContentTypeName.plainText) {
            chain.append(ContentTypeName.plainText)
        }
        if !start.hasPrefix("inode/") && !chain.contains(ContentTypeName.octetStream) {
            chain.append(ContentTypeName.octetStream)
        }
        return chain
    }
}
