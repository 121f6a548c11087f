import DBus
import SchemeBridgeContract
import Synchronization

/// The `Response` sent last and, once the same one is sent again, that response marshalled once
/// (``EncodedSignal``): a run of requests answered alike — shares to one device, each `Response`
/// naming the same target, device, engine and delivery — sends addressed copies of one message
/// rather than building each (a copy ~18,000 instructions and the comparison ~4,800, against
/// ~71,000 to build one: docs/PERFORMANCE.md, session 22).
///
/// Only small responses of strings are kept (``isKept(_:)``): what a handler sent in `Reply`
/// is never held past the next response, and comparing stays cheap.
final class RepeatedResponses: Sendable {
    private let last = Mutex<(response: Response, encoded: EncodedSignal?)?>(nil)

    /// The marshalled form of `response` when it is the one sent last (made now if it was not yet);
    /// nil when it is another, which is remembered instead.
    func encoded(_ response: Response) -> EncodedSignal? {
        guard Self.isKept(response) else { return nil }
        return last.withLock { state in
            guard let previous = state, previous.response == response else {
                state = (response, nil)
                return nil
            }
            if let encoded = previous.encoded { return encoded }
            let encoded = try? response.encoded()
            state = (response, encoded)
            return encoded
        }
    }

    /// At most eight results, each a string of at most 256 bytes.
    static func isKept(_ response: Response) -> Bool {
        response.results.count <= 8 && response.results.allSatisfy { _, value in
            if case .string(let s) = value { s.utf8.count <= 256 } else { false }
        }
    }
}
