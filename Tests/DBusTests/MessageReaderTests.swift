import Testing
@testable import DBus

/// A method that reads its own arguments (``MessageReader``: `Share`'s items) reads what the
/// ``DBusValue`` decoding reads, and refuses what it refuses, with the same error.
@Suite struct MessageReaderTests {
    static let itemsType = DBusType.array(.dictionary(key: .string, value: .variant))
    static let types: [DBusType] = [itemsType, .dictionary(key: .string, value: .variant)]

    /// A message with `values` for body, and its `aa{sv}` + `a{sv}` read both ways.
    static func readBothWays(_ values: [DBusValue], keys: Set<String>? = nil) throws -> (read: [DBusValue], decoded: [DBusValue]) {
        let message = try OutgoingMessage(signalFrom: "/test", interface: "org.example.Test", member: "Read", destination: nil)
        var writer = MessageWriter(message: message.handle)
        for v in values { try writer.append(v) }
        let limits = [Marshal.Limits(), Marshal.Limits(keys: keys)]
        let decoded = try Marshal.decodeBody(message.handle, types: types, limits: limits)
        var reader = MessageReader(message: message.handle, types: types, limits: limits)
        var items: [DBusValue] = []
        try reader.arrayArgument(of: .dictionary(key: .string, value: .variant)) { item throws(DBusError) in
            var entries: [DictEntry] = []
            try item.vardict { key, content throws(DBusError) in
                let value: DBusValue = switch content {
                case .string(let s): .string(s)
                case .bytes(let b): .bytes(b)
                case .unixFD(let fd): .unixFD(fd)
                case .value(let v): v
                }
                entries.append(DictEntry(.string(key), .variant(value)))
            }
            items.append(.dictionary(key: .string, value: .variant, entries))
        }
        let options = try reader.argument()
        return ([.array(element: .dictionary(key: .string, value: .variant), items), options], decoded)
    }

    static func items(_ entries: [[String: DBusValue]]) -> DBusValue {
        .array(element: .dictionary(key: .string, value: .variant), entries.map { .vardict($0) })
    }

    @Test func itemsAndOptionsReadAsTheyDecode() throws {
        let values: [DBusValue] = [
            Self.items([
                ["file": .string("/tmp/x"), "name": .string("x.png"), "type": .string("image/png")],
                ["data": .bytes([0, 1, 2]), "title": .variant(.string("in a variant")), "odd": .uint32(7)],
                ["nested": .variant(.variant(.bytes([9]))), "path": .objectPath("/o"), "list": .strings(["a"]), "dict": .vardict(["k": .int16(-2)])],
                [:],
            ]),
            .vardict(["target": .string("device:abc"), "ask": .boolean(false), "unread": .strings(["x"])]),
        ]
        let (read, decoded) = try Self.readBothWays(values)
        #expect(read == decoded)
        #expect(read[0] == values[0])
        // The options' undeclared keys are skipped as the declaration says, both ways.
        let (readKeys, decodedKeys) = try Self.readBothWays(values, keys: ["target"])
        #expect(readKeys == decodedKeys && readKeys[1] == .vardict(["target": .string("device:abc")]))
    }

    /// The options read straight into a dictionary (``MessageReader/vardictArgument()``): what the
    /// decoded `a{sv}`'s `stringDictionary` is — a key given twice, the last; undeclared keys
    /// skipped; a value nested too deep refused with the same error.
    @Test(arguments: [nil, Set(["target", "twice", "deep"])])
    func optionsReadAsTheirDictionary(keys: Set<String>?) throws {
        let deep = (0..<70).reduce(DBusValue.string("core")) { inner, _ in .variant(inner) }
        let options: [DBusValue] = [
            .dictionary(key: .string, value: .variant, [
                DictEntry(.string("target"), .variant(.string("device:abc"))), DictEntry(.string("twice"), .variant(.uint32(1))),
                DictEntry(.string("unread"), .variant(.strings(["x"]))), DictEntry(.string("twice"), .variant(.string("last"))),
            ]),
            .dictionary(key: .string, value: .variant, [DictEntry(.string("deep"), .variant(deep))]),
        ]
        for option in options {
            let message = try OutgoingMessage(signalFrom: "/test", interface: "org.example.Test", member: "Read", destination: nil)
            var writer = MessageWriter(message: message.handle)
            try writer.append(Self.items([["file": .string("/tmp/x")]]))
            try writer.append(option)
            let limits = [Marshal.Limits(), Marshal.Limits(keys: keys)]
            var decodeResult: Result<[String: DBusValue], DBusError>
            do { decodeResult = .success(try Marshal.decodeBody(message.handle, types: Self.types, limits: limits)[1].stringDictionary ?? [:]) } catch { decodeResult = .failure(error) }
            var reader = MessageReader(message: message.handle, types: Self.types, limits: limits)
            var readResult: Result<[String: DBusValue], DBusError>
            do {
                try reader.arrayArgument(of: .dictionary(key: .string, value: .variant)) { item throws(DBusError) in try item.vardict { _, _ in } }
                readResult = .success(try reader.vardictArgument())
            } catch { readResult = .failure(error) }
            switch (readResult, decodeResult) {
            case (.success(let read), .success(let decoded)):
                #expect(read == decoded)
                #expect(read["twice"] == .variant(.string("last")) && read["unread"] == (keys == nil ? .variant(.strings(["x"])) : nil))
            case (.failure(let read), .failure(let decoded)):
                #expect(read.name == decoded.name && read.message == decoded.message)
            default:
                Issue.record("read \(readResult), decoded \(decodeResult)")
            }
        }
    }

    @Test func noItemsReadAsNone() throws {
        let (read, decoded) = try Self.readBothWays([Self.items([]), .vardict([:])])
        #expect(read == decoded)
    }

    /// A message holding more values than one may decode to is refused, with the same error.
    @Test func theBudgetRefusesTheSameMessage() throws {
        let many = [[String: DBusValue]](repeating: ["k": .string("v")], count: DecodeBudget.maximumValues / 3 + 1)
        let values = [Self.items(many), .vardict([:])]
        var decodeError: DBusError?
        do { _ = try Self.readBothWays(values) } catch let e as DBusError { decodeError = e }
        let message = try OutgoingMessage(signalFrom: "/test", interface: "org.example.Test", member: "Read", destination: nil)
        var writer = MessageWriter(message: message.handle)
        for v in values { try writer.append(v) }
        var reader = MessageReader(message: message.handle, types: Self.types, limits: [])
        var readError: DBusError?
        do { try reader.arrayArgument(of: .dictionary(key: .string, value: .variant)) { item throws(DBusError) in try item.vardict { _, _ in } } } catch { readError = error }
        #expect(decodeError != nil && readError?.name == decodeError?.name && readError?.message == decodeError?.message, "\(String(describing: readError)) \(String(describing: decodeError))")
    }
}
