/// What a desktop entry provides for picking: `X-SchemeBridge-Provides=TYPES;` in its
/// `[Desktop Entry]` group (content types, `type/*` and `*/*` allowed). Read from the registry's
/// entries as they are now (live, like `MimeType=`).
public enum ProviderDeclaration {
    /// The key.
    public static let key = "X-SchemeBridge-Provides"
    /// The most types kept of one entry (the rest are ignored).
    public static let maximumTypes = 256

    /// The types `entry` provides, in file order, without duplicates; invalid values are
    /// skipped. Empty: the entry is no provider.
    public static func types(of entry: DesktopEntry) -> [PickType] {
        guard let value = entry.extensionKeys[key] else { return [] }
        return types(value)
    }

    /// The types of a `X-SchemeBridge-Provides` value (a `;` list).
    public static func types(_ value: String) -> [PickType] {
        var out: [PickType] = []
        var seen = Set<String>()
        for part in value.split(separator: ";") where out.count < maximumTypes {
            let text = String(part.trimmingSpaces)
            if let type = try? PickType(Registry.lowercasedASCII(text)), seen.insert(type.name).inserted { out.append(type) }
        }
        return out
    }
}
