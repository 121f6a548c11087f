import SchemeBridgeContract
import SchemeBridgeCore

extension DefaultHandlerOrigin {
    /// `DefaultHandlerOrigin`'s answer for what the core found (``CallerQueries/defaultHandlerOrigin(_:sender:)``):
    /// empty when nothing was.
    init(_ found: DefaultHandlerFound?) {
        guard let found else { self.init(handler: "", level: ""); return }
        self.init(handler: found.handler.fileName, level: found.origin.level.rawValue, file: found.origin.file, desktop: found.origin.desktop,
                  contentType: found.contentType)
    }
}
