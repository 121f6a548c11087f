/// Things in flight counted per key (a caller's app id, say); a key goes when its count is back
/// to 0, so the table never holds more keys than things counted. Guard it with a lock.
public struct KeyedCounts: Sendable {
    private var counts: [String: Int] = [:]

    public init() {}

    /// The count under `key`.
    public subscript(key: String) -> Int { counts[key, default: 0] }

    /// All counts together.
    public var total: Int { counts.values.reduce(0, +) }

    /// The counts of the keys `matching` accepts, together.
    public func total(matching: (String) -> Bool) -> Int { counts.filter { matching($0.key) }.values.reduce(0, +) }

    /// Counts one more under `key`.
    public mutating func add(_ key: String) { counts[key, default: 0] += 1 }

    /// Counts one less under `key`.
    public mutating func remove(_ key: String) {
        let left = counts[key, default: 1] - 1
        counts[key] = left > 0 ? left : nil
    }
}
