import Synchronization

/// Whose each open request object is and how its `Close` ends it: one `Close` handler serves every
/// request object, finding its request by the number that ends the object's path.
public final class RequestClosers: Sendable {
    private let table = Mutex<[UInt64: (caller: String, close: @Sendable () -> Bool)]>([:])

    public init() {}

    /// Request `id`'s object was made for `caller`; `close` ends the request as cancelled.
    public func add(_ id: UInt64, caller: String, close: @escaping @Sendable () -> Bool) {
        table.withLock { $0[id] = (caller, close) }
    }

    /// Request `id`'s object is gone.
    public func remove(_ id: UInt64) {
        table.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Ends the request whose object is at `path` as cancelled, when `sender` made it; false when
    /// there is no such request, it is another caller's, or it was already done.
    public func close(path: String, sender: String) -> Bool {
        guard let last = path.split(separator: "/").last, let id = UInt64(last),
              let request = table.withLock({ $0[id] }), request.caller == sender else { return false }
        return request.close()
    }
}
