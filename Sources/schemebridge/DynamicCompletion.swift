import ArgumentParser
import DBus
import Glibc
import SchemeBridgeContract

/// Completions that ask the service (the shell runs `schemebridge ---completion …` as the user
/// types): the schemes that have a handler, and the desktop ids of their handlers. Nothing is
/// printed but the candidates: no service, no candidates, no message in the middle of a line.
enum DynamicCompletion {
    /// The schemes with a handler (the `Schemes` property) that start with the word typed.
    static let schemes = CompletionKind.custom { _, _, prefix in
        withQuietService { service in
            (try? service.property(ContractProperty.schemes).arrayElements ?? [])?.compactMap(\.string).filter { $0.hasPrefix(prefix) } ?? []
        }
    }

    /// Desktop ids: the handlers of the scheme before the word (`default SCHEME ID`), else of every
    /// scheme (`open --handler ID`), that start with the word typed.
    static let desktopIDs = CompletionKind.custom { words, index, prefix in
        withQuietService { service in
            let before = index > 0 && index - 1 < words.count ? words[index - 1] : ""
            var schemes = [before].filter { !$0.hasPrefix("-") && !$0.isEmpty }
            if schemes.isEmpty || (try? service.perform(.handlersForScheme(schemes[0])))?.isEmpty != false {
                schemes = (try? service.property(ContractProperty.schemes).arrayElements ?? [])?.compactMap(\.string) ?? []
            }
            var seen = Set<String>()
            return schemes.flatMap { (try? service.perform(.handlersForScheme($0))) ?? [] }
                .filter { $0.hasPrefix(prefix) && seen.insert($0).inserted }
        }
    }

    /// `body` with a connection to the service, standard error silenced; `[]` without a bus.
    private static func withQuietService(_ body: (SchemeBridgeBlockingClient) -> [String]) -> [String] {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        if null >= 0 { dup2(null, 2) }
        guard let service = try? ServiceClient.connect(address: nil, timeout: 5) else { return [] }
        return body(service)
    }
}
