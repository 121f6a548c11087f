/// Limits on what decoding one message may build, so a message cannot make the receiver
/// allocate far more than it sent. Strings and byte arrays cost what they weigh on the wire (a
/// byte array is stored compactly, ``DBusValue/bytes(_:)``); what can multiply memory is the
/// number of values (an `au` element is 4 bytes on the wire and a `DBusValue` in memory), so
/// that is what is counted. Past a limit the message is refused with `InvalidArgs`.
struct DecodeBudget {
    /// Values one message may decode to (a `DBusValue` is 32 bytes: 8 MiB at most).
    static let maximumValues = 1 << 18
    /// Containers nested deeper than this are refused (the D-Bus limit is 64 in all).
    static let maximumDepth = 64

    private(set) var values = 0

    mutating func chargeValue() throws(DBusError) {
        values += 1
        if values > Self.maximumValues {
            throw DBusError(.invalidArgs, "the message holds more than \(Self.maximumValues) values; send bulk data as one byte array (ay) or a file descriptor (h)")
        }
    }
}
