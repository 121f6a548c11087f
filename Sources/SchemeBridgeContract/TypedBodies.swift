import DBus

// `Response` and `Share` written and read straight into and from their messages (no `DBusValue` tree).

extension Response {
    /// Code 2 naming `failure` (`error-name`, `error-message`).
    public init(failure: DBusError) {
        self.init(code: ReplyCode.failed.rawValue, results: Self.failure(name: failure.name.rawValue, message: failure.message))
    }

    /// The results that name why a request failed.
    public static func failure(name: String, message: String) -> [String: DBusValue] {
        [Key.errorName: .string(name), Key.errorMessage: .string(message)]
    }
}

extension Connection {
    /// `response` from the request object at `path`, to `destination` only: its `u` and `a{sv}`
    /// written straight into the message (``MessageWriter``; the bytes ``Response/arguments`` make).
    public func emit(_ response: Response, path: ObjectPath, to destination: BusName) throws(DBusError) {
        try emit(path: path, interface: Response.interface, member: Response.member, destination: destination, body: response.write)
    }
}

extension Response {
    /// Writes the body: its `u` and `a{sv}`.
    func write(_ body: inout MessageWriter) throws(DBusError) {
        try body.append(code)
        try body.appendVardict(results)
    }

    /// This response marshalled once (``EncodedSignal``): the signal ``Connection/emit(_:path:to:)``
    /// sends, for sending copies of from any request's path.
    public func encoded() throws(DBusError) -> EncodedSignal {
        try EncodedSignal(interface: Self.interface, member: Self.member, body: write)
    }
}

extension ShareContract {
    /// `Share(aa{sv} items, a{sv} options)` read straight from the call (``MessageReader``): each
    /// item's entries as `field` makes them of what their variants hold (a key given twice: the
    /// last), the options as values. The items are not counted here: the share checks their number
    /// after its options.
    @inlinable
    public static func read<Field>(_ reader: inout MessageReader, field: (VariantContent) -> Field) throws(DBusError) -> (items: [[String: Field]], options: [String: DBusValue]) {
        let items = try reader.vardictArrayArgument(field)
        return (items, try reader.vardictArgument())
    }
}
