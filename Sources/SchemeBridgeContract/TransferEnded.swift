import DBus

/// `TransferEnded(o request, s delivery, a{sv} details)` on `io.github.schemebridge.Share1`: a
/// device share whose caller did not wait for its delivery (no `delivery` option) was answered
/// with `delivery` `handed-to-engine`; when the engine later reports how the transfer ended, the
/// caller — only the caller: the signal is sent to its unique name — learns it here. `delivery`
/// is `delivered`, `failed` or `unknown` (still running after `[Devices] Timeout`); `details`
/// carries `target`, `device`, `engine`, and `error-name`/`error-message` when it did not arrive.
/// Sent at most once per request, after its `Response`; never for a share the engine does not
/// report (then `handed-to-engine` is all that is known).
public struct TransferEnded: ContractSignal, Equatable {
    public static let interface = ShareContract.interface
    public static let member: MemberName = "TransferEnded"
    public static let declaredArguments = [Argument("request", "o"), Argument("delivery", "s"), Argument("details", "a{sv}")]

    /// The share's request object (its `Response` came first).
    public var request: ObjectPath
    /// `delivered`, `failed` or `unknown`.
    public var delivery: String
    /// `target`, `device`, `engine`; `error-name` and `error-message` unless delivered.
    public var details: [String: DBusValue]

    public init(request: ObjectPath, delivery: String, details: [String: DBusValue]) {
        (self.request, self.delivery, self.details) = (request, delivery, details)
    }

    public init?(arguments a: [DBusValue]) {
        guard a.count == 3, case .objectPath(let request) = a[0], let delivery = a[1].string, let details = a[2].stringDictionary else { return nil }
        self.init(request: request, delivery: delivery, details: details.mapValues(\.unwrapped))
    }

    public var arguments: [DBusValue] { [.objectPath(request), .string(delivery), .vardict(details)] }
}
