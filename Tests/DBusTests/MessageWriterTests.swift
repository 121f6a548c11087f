import Testing
@testable import DBus

/// A body written straight from Swift values (``MessageWriter``, the request objects' `Response`)
/// is the very message the ``DBusValue`` path makes, and refuses what it refuses.
@Suite struct MessageWriterTests {
    static let results: [String: DBusValue] = [
        "target": .string("device:abc"), "delivery": .string("handed-to-engine"), "code": .uint32(7), "flag": .boolean(true),
        "path": .objectPath("/org/example/x"), "big": .int64(.min), "small": .byte(3), "ratio": .double(0.5), "sig": .signature("a{sv}"),
        "nested": .variant(.string("in a variant")), "bytes": .bytes([0, 1, 255]), "list": .strings(["a", ""]),
        "dict": .vardict(["k": .uint16(9), "j": .strings([])]), "pair": .structure([.int32(-1), .string("two")]),
        "é-ünïcode": .string("✓ 🚀"), "": .string("empty key"),
    ]

    /// `u` + `a{sv}` written directly: the same bytes as `[.uint32, .vardict]` marshalled.
    @Test func aWrittenVardictIsTheVardictsWireForm() throws {
        let written = try MessageWriter.wireForm { w throws(DBusError) in
            try w.append(UInt32(2))
            try w.appendVardict(Self.results)
        }
        #expect(written == (try MessageWriter.wireForm(values: [.uint32(2), .vardict(Self.results)])))
        #expect(try MessageWriter.wireForm { w throws(DBusError) in try w.appendVardict([:]) } == (try MessageWriter.wireForm(values: [.vardict([:])])))
    }

    /// A value that is a variant already (decoded from a message, or written as one) is the entry's
    /// variant, not wrapped in a second, on both paths: a handler's `Reply` results forwarded in a
    /// `Response`, or notification hints, reach a strict reader (sd-bus's) as `a{sv}` says.
    @Test func aValueThatIsAVariantIsTheEntrysVariant() throws {
        let plain: [String: DBusValue] = ["urgency": .byte(1), "category": .string("transfer.complete"), "list": .strings(["a"])]
        let wrapped = plain.mapValues { DBusValue.variant($0) }
        #expect(try MessageWriter.wireForm(values: [.vardict(wrapped)]) == (try MessageWriter.wireForm(values: [.vardict(plain)])))
        #expect(try MessageWriter.wireForm { w throws(DBusError) in try w.appendVardict(wrapped) } == (try MessageWriter.wireForm(values: [.vardict(plain)])))
        // Read back: each value one variant deep.
        guard case .dictionary(_, _, let entries) = DBusValue.vardict(wrapped) else { Issue.record("not a dictionary"); return }
        for e in entries {
            guard case .variant(let content) = e.value else { Issue.record("\(e.key) not in a variant"); continue }
            if case .variant = content { Issue.record("\(e.key) in two variants") }
        }
    }

    /// Strings and values appended one by one: the same bytes too.
    @Test func writtenValuesAreTheirWireForm() throws {
        let values: [DBusValue] = [.string("s"), .uint32(1), .array(element: .variant, [.variant(.int32(4))])]
        let written = try MessageWriter.wireForm { w throws(DBusError) in
            try w.append("s")
            try w.append(UInt32(1))
            try w.append(values[2])
        }
        #expect(written == (try MessageWriter.wireForm(values: values)))
    }

    /// What the values' checks refuse, the writer refuses: a NUL in a key, in a string value, deep
    /// inside a container; an array holding another type.
    @Test(arguments: [
        ["a\0b": DBusValue.string("x")], ["k": .string("x\0")], ["k": .strings(["ok", "no\0"])],
        ["k": .array(element: .string, [.uint32(1)])], ["k": .vardict(["in": .string("\0")])],
    ])
    func badEntriesAreRefused(_ entries: [String: DBusValue]) {
        #expect(throws: DBusError.self) { try MessageWriter.wireForm(values: [.vardict(entries)]) }
        do {
            _ = try MessageWriter.wireForm { w throws(DBusError) in try w.appendVardict(entries) }
            Issue.record("accepted \(entries)")
        } catch {
            #expect(error.name == .invalidArgs)
        }
    }

    /// A string argument with a NUL is refused.
    @Test func aStringWithANULIsRefused() {
        #expect(throws: DBusError.self) { try MessageWriter.wireForm { w throws(DBusError) in try w.append("a\0") } }
    }
}
