/// Aliases and sub-classes in one cache: two lists sorted by type name.
extension MimeCache {
    /// The canonical type `alias` stands for, when this cache lists it as an alias.
    func canonicalType(forAlias alias: UnsafeBufferPointer<UInt8>) -> String? {
        guard let entry = search(list: aliasList + 4, count: u32(aliasList), stride: 8, for: alias) else { return nil }
        return typeName(u32(entry + 4))
    }

    /// The aliases this cache lists for `type` (a scan of the alias list: a few hundred entries).
    func aliases(of type: UnsafeBufferPointer<UInt8>) -> [String] {
        (0..<u32(aliasList)).compactMap { i in
            let entry = aliasList + 4 + 8 * i
            guard compareString(at: u32(entry + 4), with: type) == 0 else { return nil }
            // An alias is a string the check found to end inside the file (not a type name).
            let start = u32(entry)
            guard start < bytes.count, let end = bytes[start...].firstIndex(of: 0) else { return nil }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }

    /// The parents this cache declares for `type` (`nil` when it declares none: the type is not
    /// in its list).
    func parents(of type: UnsafeBufferPointer<UInt8>) -> [String]? {
        guard let entry = search(list: parentList + 4, count: u32(parentList), stride: 8, for: type) else { return nil }
        let list = u32(entry + 4)
        return (0..<u32(list)).map { typeName(u32(list + 4 + 4 * $0)) }
    }
}
