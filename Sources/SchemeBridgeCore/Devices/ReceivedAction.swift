import Glibc

/// What is done with what a nearby device sent, per `[Devices] OpenReceived` (``OpenReceived``):
/// nothing with `never`; else a file is opened as a document (the app for its type, asked with
/// `ask`, else the default); text that is one URL of a scheme some app opens is opened as that
/// URL; other text as a `text/plain` document.
public enum ReceivedAction: Sendable, Equatable {
    /// Left where the engine put it.
    case leave
    /// The file at `path` opened as `OpenFile` would, its type detected unless `type` is given.
    case openFile(path: String, type: String?, ask: Bool)
    /// The URL opened as `OpenURLWithOptions` would.
    case openURL(String, ask: Bool)
}

extension ReceivedShare {
    /// The action for this share under `mode`. `urlInText` reads the received text's URL (only
    /// asked for text, and not with `never`: ``url(inFile:)``); `opensScheme`: whether an app
    /// opens a scheme.
    public func action<E: Error>(mode: OpenReceived, urlInText: (String) async throws(E) -> String?,
                                 opensScheme: (String) -> Bool) async throws(E) -> ReceivedAction {
        guard mode != .never else { return .leave }
        let ask = mode == .ask
        switch self {
        case .file(let path):
            return .openFile(path: path, type: nil, ask: ask)
        case .text(let path):
            if let url = try await urlInText(path), let scheme = try? Scheme(String(url.prefix { $0 != ":" })), opensScheme(scheme.name) {
                return .openURL(url, ask: ask)
            }
            return .openFile(path: path, type: ContentTypeName.plainText, ask: ask)
        }
    }

    /// The URL the received text in the file at `path` is (``url(inText:)``), read without
    /// following a symlink or blocking on a FIFO; nil when it is not a regular file, is empty,
    /// holds ``maximumTextBytes`` or more, or is not UTF-8. Blocking: run it on a descriptor thread.
    public static func url(inFile path: String) throws(ServiceFailure) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw ServiceFailure(.failed, "cannot open the received text \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: maximumTextBytes)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, n < maximumTextBytes, let text = String(validating: buffer.prefix(n), as: UTF8.self) else { return nil }
        return url(inText: text)
    }
}
