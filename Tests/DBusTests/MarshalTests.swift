import Testing
@testable import DBus
#if canImport(Glibc)
import Glibc
#endif

@Suite struct MarshalTests {
    static let basics: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false),
        .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(.max), .uint32(.max),
        .int64(.min), .int64(.max), .uint64(.max), .double(-1.5), .double(.infinity), .double(0),
        .string(""), .string("héllo wörld ✓ 🚀"), .string("quotes ' \" $() `x` ; & \n\t"),
        .objectPath("/"), .objectPath("/org/example/Todo1"),
        .signature(""), .signature("a{sv}"),
    ]

    @Test(arguments: basics)
    func basicRoundTrip(_ value: DBusValue) throws {
        #expect(try Marshal.wireRoundTrip([value]) == [value])
    }

    /// A variant holding a basic value is read by its type code: each comes back as it went.
    @Test(arguments: basics)
    func basicInAVariantRoundTrips(_ value: DBusValue) throws {
        #expect(try Marshal.wireRoundTrip([.variant(value)]) == [.variant(value)])
    }

    /// The basic types found by code are exactly those whose code it is; containers have none.
    @Test func basicTypesAreFoundByTheirCodes() {
        let basics: [DBusType] = [.byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string,
                                  .objectPath, .signature, .unixFD]
        for type in basics { #expect(DBusType.basic(code: type.code) == type) }
        for code: Int32 in [118, 97, 114, 101, 0, -1, 200] { #expect(DBusType.basic(code: code) == nil, "\(code)") }
    }

    @Test func containersRoundTrip() throws {
        let nested: [DBusValue] = [
            .strings(["a", "b", ""]),
            .array(element: .string, []),
            .array(element: .array(.int32), []),
            .array(element: .array(.int32), [.array(element: .int32, []), .array(element: .int32, [.int32(1), .int32(2)])]),
            .vardict([:]),
            .vardict(["handler": .string("todo.desktop"), "pid": .uint32(42), "launch-image": .boolean(false),
                      "nested": .vardict(["deep": .strings(["x"])])]),
            .dictionary(key: .uint32, value: .array(.string), [DictEntry(.uint32(1), .strings([]))]),
            .dictionary(key: .objectPath, value: .dictionary(key: .string, value: .variant), []),
            .structure([.int32(1), .string("x"), .structure([.boolean(true)])]),
            .array(element: .structure([.string, .uint32]), []),
            .variant(.variant(.variant(.byte(7)))),
            .variant(.array(element: .string, [])),
            .variant(.structure([.double(2.5), .objectPath("/a")])),
            .bytes([1, 2, 3]),
            .bytes([]),
        ]
        let back = try Marshal.wireRoundTrip(nested)
        #expect(back == nested)
        // The boxed form still sends; it always comes back compact.
        #expect(try Marshal.wireRoundTrip([.array(element: .byte, [.byte(1), .byte(2)])]) == [.bytes([1, 2])])
        #expect(back.map(\.type.signature) == ["as", "as", "aai", "aai", "a{sv}", "a{sv}", "a{uas}", "a{oa{sv}}", "(is(b))", "a(su)", "v", "v", "v", "ay", "ay"])
    }

    @Test func emptyContainersKeepTheirElementType() throws {
        let back = try Marshal.wireRoundTrip([.array(element: .dictionary(key: .string, value: .variant), [])])
        #expect(back.first?.type.signature == "aa{sv}")
    }

    @Test func maximumNesting() throws {
        var v: DBusValue = .int32(1)
        for _ in 0..<32 { v = .array(element: v.type, [v]) }
        #expect(try Marshal.wireRoundTrip([v]) == [v])
        var s: DBusValue = .int32(1)
        for _ in 0..<32 { s = .structure([s]) }
        #expect(try Marshal.wireRoundTrip([s]) == [s])
    }

    @Test func largeArrays() throws {
        let bytes = DBusValue.bytes((0..<(4 << 20)).map { UInt8($0 & 0xFF) })
        #expect(try Marshal.wireRoundTrip([bytes]) == [bytes])
        let strings = DBusValue.strings((0..<50_000).map { "item-\($0)" })
        #expect(try Marshal.wireRoundTrip([strings]) == [strings])
        let big = String(repeating: "x", count: 1 << 20)
        #expect(try Marshal.wireRoundTrip([.string(big)]) == [.string(big)])
    }

    @Test func unixFDsAreDuplicatedAndOwned() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let fd = try UnixFD(duplicating: fds[0])
        #expect(fd.rawValue != fds[0])
        // A message carrying an fd cannot be serialized to bytes; check marshalling via a real bus instead.
        #expect(DBusValue.unixFD(fd).type == .unixFD)
    }

    @Test func mismatchedContainersAreRefused() {
        #expect(throws: DBusError.self) { try Marshal.wireRoundTrip([.array(element: .string, [.int32(1)])]) }
        #expect(throws: DBusError.self) { try Marshal.wireRoundTrip([.dictionary(key: .string, value: .variant, [DictEntry(.string("k"), .string("not a variant"))])]) }
        #expect(throws: DBusError.self) { try Marshal.wireRoundTrip([.structure([])]) }
        #expect(throws: DBusError.self) { try Marshal.wireRoundTrip([.string("nul\0inside")]) }
        #expect(throws: DBusError.self) { try Marshal.wireRoundTrip([.dictionary(key: .variant, value: .string, [])]) }
    }

    @Test func typedConversions() throws {
        let dict: [String: Variant] = ["a": Variant(UInt32(3)), "b": Variant("x")]
        let value = dict.dbusValue
        #expect(value.type.signature == "a{sv}")
        #expect([String: Variant](dbusValue: try Marshal.wireRoundTrip([value])[0]) == dict)
        #expect([String](dbusValue: .strings(["x", "y"])) == ["x", "y"])
        #expect([String](dbusValue: .array(element: .int32, [])) == nil)
        #expect(UInt32(dbusValue: .int32(1)) == nil)
        #expect([[Int32]].dbusType.signature == "aai")
    }
}

@Suite struct ErrorMappingTests {
    struct AppError: DBusErrorConvertible {
        var dbusError: DBusError { DBusError("org.example.Error.NoHandler", "no application handles the scheme 'x'") }
    }
    struct Plain: Error, CustomStringConvertible { var description: String { "plain failure" } }

    @Test func mapping() {
        #expect(DBusError.from(AppError()).name.rawValue == "org.example.Error.NoHandler")
        #expect(DBusError.from(Plain()) == DBusError(.failed, "plain failure"))
        let bad = "x"
        do { _ = try ObjectPath(bad) } catch {
            #expect(DBusError.from(error).name == .invalidArgs)
            #expect(DBusError.from(error).message.contains("must start with '/'"))
        }
    }
}
