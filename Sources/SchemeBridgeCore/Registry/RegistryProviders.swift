/// Providers (issue 25): the eligible applications whose entry declares
/// `X-SchemeBridge-Provides=TYPES;`. Read from the same records as schemes and types, so a new,
/// changed or removed entry counts at once (inotify), without a cache of its own on disk.
extension Registry {
    /// Every provider with the types it provides, by desktop id in byte order.
    public func providers() -> [(id: DesktopID, types: [PickType])] {
        if state.withLock({ $0.frozen != nil }) {
            // Started from the index, which stores scheme answers only: read the records now.
            writer.withLock { _ in materializeLocked() }
        }
        return state.withLock { m in
            if let listing = m.providerListing, listing.generation == m.recordGeneration { return listing.list }
            var list: [(id: DesktopID, types: [PickType])] = []
            for (id, entry) in m.effective where entry.extensionKeys[ProviderDeclaration.key] != nil {
                let types = ProviderDeclaration.types(of: entry)
                if !types.isEmpty { list.append((DesktopID(fileName: id), types)) }
            }
            list.sort { RegistryModel.bytewiseLess($0.id.fileName, $1.id.fileName) }
            m.providerListing = (m.recordGeneration, list)
            return list
        }
    }

    /// The types `id` provides; empty when it is no eligible provider.
    public func providedTypes(_ id: DesktopID) -> [PickType] {
        providers().first { $0.id == id }?.types ?? []
    }
}
