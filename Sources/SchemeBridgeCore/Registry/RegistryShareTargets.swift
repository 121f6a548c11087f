extension Registry {
    /// The eligible effective entries that declare share actions, by desktop id. Live: entries are
    /// read as the registry reads them (inotify), so a target appears and vanishes with its file.
    /// Started from the index, the records are read first (once).
    public func shareEntries() -> [DesktopEntry] {
        if state.withLock({ $0.frozen != nil }) {
            writer.withLock { _ in materializeLocked() }
        }
        return state.withLock { m in m.effective.values.filter { !$0.shareActions.isEmpty } }.sorted { $0.id < $1.id }
    }
}
