import SchemeBridgeContract

extension Handlers {
    /// The `skipped` member of `handlers --json`: `[{"desktop_id":…,"path":…,"reason":…}]`.
    static func skippedJSON(_ skipped: [SkippedEntry]) -> JSON.Value {
        .array(skipped.map { .object([("desktop_id", .string($0.desktopID)), ("path", .string($0.path)), ("reason", .string($0.reason))]) })
    }
}
