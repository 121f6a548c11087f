import Glibc
import LinuxSystem

/// What is done with what a nearby device sent, per `[Devices] OpenReceived` (``OpenReceived``):
/// nothing with `never`; else a file is opened as a document (the app for its type, asked with
/// `ask`, else the default); text that is one URL of a scheme some app opens is opened as that
/// URL; other text as a document too, its type detected like any file's (never forced: a path
/// is only ever what its content and name say). The share is opened only where the engine
/// writes (``ReceivedPlaces``).
public enum ReceivedAction: Sendable, Equatable {
    /// Left where the engine put it.
    case leave
    /// The share's file opened as `OpenFile` would, its type detected.
    case openFile(ReceivedShare, ask: Bool)
    /// The URL opened as `OpenURLWithOptions` would.
    case openURL(String, ask: Bool)
}

extension ReceivedShare {
    /// The action for this share under `mode`. `urlInText` reads the received text's URL (only
    /// asked for text, and not with `never`: ``url(inDescriptor:)`` on what
    /// ``ReceivedPlaces/open(_:)`` opened); `opensScheme`: whether an app opens a scheme.
    public func action<E: Error>(mode: OpenReceived, urlInText: (String) async throws(E) -> String?,
                                 opensScheme: (String) -> Bool) async throws(E) -> ReceivedAction {
        guard mode != .never else { return .leave }
        let ask = mode == .ask
        switch self {
        case .file:
            return .openFile(self, ask: ask)
        case .text(let path):
            if let url = try await urlInText(path), let scheme = try? Scheme(String(url.prefix { $0 != ":" })), opensScheme(scheme.name) {
                return .openURL(url, ask: ask)
            }
            return .openFile(self, ask: ask)
        }
    }

    /// The URL the received text open at `fd` is (``url(inText:)``); nil when it is not a
    /// regular file, is empty, holds ``maximumTextBytes`` or more, or is not UTF-8 (read from its start).
    /// Blocking: run it on a descriptor thread.
    public static func url(inDescriptor descriptor: borrowing FileDescriptor) -> String? {
        guard let st = try? descriptor.status(), st.st_mode & S_IFMT == S_IFREG else { return nil }
        let fd = descriptor.rawValue
        var buffer = [UInt8](repeating: 0, count: maximumTextBytes)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0, n < maximumTextBytes, let text = String(validating: buffer.prefix(n), as: UTF8.self) else { return nil }
        return url(inText: text)
    }
}
